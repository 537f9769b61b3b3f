#!/usr/bin/env python3
"""Measure `docforge lsp` on a large tree (default: a copy of $(go env GOROOT)/src).

  python3 tests/lsp/bench.py target/release/docforge [--no-precise] [--rounds 20] [--src DIR]
  python3 tests/lsp/bench.py --gopls $(go env GOPATH)/bin/gopls      # the same scenario on gopls

Reports (never asserts): time from `initialize` to the first non-empty hover on a call site
(`Error`) in the opened file (the first index: answers wait for it), RSS right after that and
after 3 s idle, didChange -> publishDiagnostics
latency for Go body edits in net/http/server.go (a statement added then removed, and a syntax
error added then removed; the very first one separately: it is the file's first change since
it was loaded), and
warm hover / definition / references latency after each edit. Python stdlib only.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, threading, queue, time


class Server:
    def __init__(self, args, cwd):
        self.p = subprocess.Popen(args, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.q = queue.Queue()
        self.next = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        f = self.p.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    self.q.put(None)
                    return
                line = line.decode().strip()
                if not line:
                    break
                k, v = line.split(':', 1)
                headers[k.lower()] = v.strip()
            self.q.put((time.perf_counter(), json.loads(f.read(int(headers['content-length'])))))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b'Content-Length: %d\r\n\r\n' % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({'jsonrpc': '2.0', 'method': method, 'params': params})

    def wait(self, pred, timeout=600, after=None):
        """The first message matching `pred` (received at or after `after`, when given:
        an earlier one answers an earlier change)."""
        deadline = time.time() + timeout
        while True:
            item = self.q.get(timeout=max(0.1, deadline - time.time()))
            if item is None:
                raise SystemExit('server exited')
            t, m = item
            if m.get('method') and 'id' in m:  # a server->client request
                result = None
                if m['method'] == 'workspace/configuration':
                    result = [{} for _ in m['params'].get('items', [])]
                self.send({'jsonrpc': '2.0', 'id': m['id'], 'result': result})
            if (after is None or t >= after) and pred(m):
                return t, m

    def request(self, method, params):
        self.next += 1
        rid = self.next
        t0 = time.perf_counter()
        self.send({'jsonrpc': '2.0', 'id': rid, 'method': method, 'params': params})
        t, m = self.wait(lambda m: m.get('id') == rid and 'method' not in m)
        return (t - t0) * 1000, m


def rss_mb(pid):
    out = {}
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith(('VmRSS', 'VmHWM')):
                k, v = line.split(':')
                out[k] = int(v.split()[0]) // 1024
    return out


def pos_of(text, needle, skip):
    for i, line in enumerate(text.split('\n')):
        j = line.find(needle)
        if j >= 0:
            return {'line': i, 'character': len(line[:j].encode('utf-16-le')) // 2 + skip}
    raise SystemExit(f'{needle!r} not found')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('server')
    ap.add_argument('--gopls', action='store_true', help='the server is gopls (started without arguments)')
    ap.add_argument('--src', default=None)
    ap.add_argument('--no-precise', action='store_true')
    ap.add_argument('--rounds', type=int, default=20)
    a = ap.parse_args()
    src = a.src or os.path.join(subprocess.check_output(['go', 'env', 'GOROOT'], text=True).strip(), 'src')
    work = tempfile.mkdtemp(prefix='docforge-lsp-bench-')
    root = os.path.join(work, 'src')
    shutil.copytree(src, root, symlinks=False)
    try:
        args = [os.path.abspath(a.server)]
        if not a.gopls:
            args += ['lsp'] + (['--no-precise'] if a.no_precise else [])
        s = Server(args, root)
        t0 = time.perf_counter()
        caps = {'window': {'workDoneProgress': True}}
        s.request('initialize', {'processId': os.getpid(), 'rootUri': 'file://' + root, 'capabilities': caps})
        s.notify('initialized', {})
        rel = 'net/http/server.go'
        uri = 'file://' + os.path.join(root, rel)
        text = open(os.path.join(root, rel)).read()
        s.notify('textDocument/didOpen', {'textDocument': {'uri': uri, 'languageId': 'go', 'version': 1, 'text': text}})
        call = pos_of(text, 'handler.ServeHTTP(', len('handler.'))
        decl = pos_of(text, 'func Error(', len('func '))
        anchor = pos_of(text, 'func (c *conn) serve(ctx context.Context) {', 0)
        edit_line = anchor['line'] + 1
        doc = lambda p: {'textDocument': {'uri': uri}, 'position': p}
        while True:
            _, r = s.request('textDocument/hover', doc(decl))
            if r.get('result'):
                break
            time.sleep(0.05)
        index_s = time.perf_counter() - t0
        mem = rss_mb(s.p.pid)
        time.sleep(3)  # idle: what the server keeps once its first index has settled
        settled = rss_mb(s.p.pid)
        diag_ms = {'body': [], 'syntax_error': []}
        hover_ms, def_ms, refs_ms = [], [], []
        version = 1
        edits = {'body': '\t_ = 0\n', 'syntax_error': '\tx := (\n'}
        for i in range(a.rounds):
            for kind, line_text in edits.items():
                for insert in (True, False):
                    version += 1
                    rng = {'start': {'line': edit_line, 'character': 0}, 'end': {'line': edit_line, 'character': 0}}
                    new = line_text
                    if not insert:
                        rng['end'] = {'line': edit_line + 1, 'character': 0}
                        new = ''
                    t1 = time.perf_counter()
                    s.notify('textDocument/didChange', {'textDocument': {'uri': uri, 'version': version},
                                                        'contentChanges': [{'range': rng, 'text': new}]})
                    # This change's publication: not one queued before it (the first index's,
                    # which a server may send late), nor one naming an older version.
                    t2, m = s.wait(lambda m: m.get('method') == 'textDocument/publishDiagnostics'
                                   and m['params']['uri'] == uri
                                   and m['params'].get('version', version) == version, after=t1)
                    diag_ms[kind].append((t2 - t1) * 1000)
                    if not insert:
                        ms, r = s.request('textDocument/hover', doc(decl)); hover_ms.append(ms)
                        ms, r = s.request('textDocument/definition', doc(call)); def_ms.append(ms)
                        ms, r = s.request('textDocument/references', dict(doc(decl), context={'includeDeclaration': False})); refs_ms.append(ms)
        warm = {'hover': [], 'definition': [], 'references': []}
        for _ in range(a.rounds):
            warm['hover'].append(s.request('textDocument/hover', doc(decl))[0])
            warm['definition'].append(s.request('textDocument/definition', doc(call))[0])
            refs = s.request('textDocument/references', dict(doc(decl), context={'includeDeclaration': False}))
            warm['references'].append(refs[0])
        n_refs = len(refs[1].get('result') or [])
        definition_found = bool(s.request('textDocument/definition', doc(call))[1].get('result'))
        after = rss_mb(s.p.pid)
        s.request('shutdown', None)
        s.notify('exit', None)
        s.p.wait(timeout=30)
        p50 = lambda xs: round(statistics.median(xs), 1)
        report = {
            'server': 'gopls' if a.gopls else 'docforge lsp', 'tree': src,
            'mode': 'gopls' if a.gopls else ('ast' if a.no_precise else 'precise'), 'rounds': a.rounds,
            'initialize_to_first_hover_s': round(index_s, 2),
            'rss_after_index_mb': mem.get('VmRSS'), 'rss_settled_mb': settled.get('VmRSS'),
            'peak_rss_mb': after.get('VmHWM'),
            'first_didChange_to_publishDiagnostics_ms': round(diag_ms['body'][0], 1),
            'didChange_to_publishDiagnostics_ms_p50': {k: p50(v) for k, v in diag_ms.items()},
            'didChange_to_publishDiagnostics_ms_max': {k: round(max(v), 1) for k, v in diag_ms.items()},
            'hover_ms_p50_after_edit': p50(hover_ms), 'definition_ms_p50_after_edit': p50(def_ms),
            'references_ms_p50_after_edit': p50(refs_ms),
            'warm_ms_p50': {k: p50(v) for k, v in warm.items()},
            'references_found': n_refs,
            'definition_at_call_found': definition_found,
        }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()

// Starts the server exactly as the extension does (serverLaunch) and performs an LSP
// handshake over stdio with vscode-jsonrpc, the transport vscode-languageclient uses.
// Usage: node out/test/launch.test.js <path to docforge> <project root>
import { spawn } from 'child_process';
import * as assert from 'assert';
import * as path from 'path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { readSettings, serverLaunch } from '../launch';

async function main(): Promise<void> {
  const [bin, root] = process.argv.slice(2);
  assert.ok(bin && root, 'usage: launch.test.js <docforge> <project root>');
  const defaults = readSettings((_key, fallback) => fallback);
  assert.deepStrictEqual(serverLaunch(defaults), { command: 'docforge', args: ['lsp'] });
  assert.deepStrictEqual(serverLaunch({ ...defaults, noAst: true }).args, ['lsp', '--no-ast']);
  assert.deepStrictEqual(serverLaunch({ ...defaults, goroot: 'off' }).args, ['lsp', '--no-goroot']);
  assert.deepStrictEqual(serverLaunch({ ...defaults, gomodcache: 'off' }).args, ['lsp', '--no-gomodcache']);
  assert.deepStrictEqual(serverLaunch({ ...defaults, goroot: '/usr/local/go' }).args, ['lsp', '--goroot', '/usr/local/go']);

  const launch = serverLaunch({ ...defaults, path: bin });
  const child = spawn(launch.command, launch.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  conn.listen();
  const rootUri = 'file://' + path.resolve(root);
  const init: any = await conn.sendRequest('initialize', { processId: process.pid, rootUri, capabilities: {} });
  assert.strictEqual(init.serverInfo.name, 'docforge');
  assert.strictEqual(init.capabilities.textDocumentSync.change, 2, 'incremental sync');
  assert.strictEqual(init.capabilities.definitionProvider, true);
  await conn.sendNotification('initialized', {});
  const uri = rootUri + '/docs/arch/service.md';
  const def: any = await conn.sendRequest('textDocument/definition', {
    textDocument: { uri },
    position: { line: 9, character: 16 },
  });
  assert.ok(def && String(def.uri).endsWith('/docs/arch/storage.md'), 'definition of depends_on = ["arch.storage"]');
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.strictEqual(code, 0, 'the server exits cleanly');
  conn.dispose();
  console.log('ok   VS Code launch options start docforge lsp; handshake, definition and shutdown work');
}

main().catch((e) => {
  console.error('FAIL', e);
  process.exit(1);
});

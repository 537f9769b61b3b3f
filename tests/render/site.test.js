'use strict';
// The rendered views of fixtures/shop in headless Chromium (Debian's /usr/bin/chromium driven
// by playwright-core): `docforge render` on a copy of the fixture, each view's output served
// over loopback, every page visited, every local link followed. Run by tests/render/run.sh.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const REPO = path.resolve(__dirname, '..', '..');
const BIN = process.env.DOCFORGE_BIN || path.join(REPO, 'target', 'debug', 'docforge');
const ARTIFACTS = process.env.RENDER_ARTIFACTS || path.join(REPO, 'target', 'render-artifacts');
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css' };

let tmp, root, views, browser;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docforge-render-'));
  root = path.join(tmp, 'shop');
  fs.cpSync(path.join(REPO, 'fixtures', 'shop'), root, {
    recursive: true,
    filter: (src) => !['.docforge', 'site'].includes(path.basename(src)),
  });
  const out = execFileSync(BIN, ['--project-root', root, 'render', '--json'], { encoding: 'utf8' });
  views = JSON.parse(out).views;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    // The machine has no network but loopback: nothing of Chromium's own may go out.
    args: ['--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A static server for `dir` on 127.0.0.1 that never answers with a file outside it. */
function serve(dir) {
  const server = http.createServer((req, res) => {
    // Chromium asks every origin for its icon; no page links one.
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    let file;
    try {
      file = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    } catch {
      return res.writeHead(400).end();
    }
    if (!file.startsWith(dir + path.sep)) return res.writeHead(403).end();
    fs.readFile(file, (err, body) => {
      if (err) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Every .html file under `dir`, as sorted paths relative to it. */
function htmlFiles(dir) {
  return fs.readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

const view = (id) => views.find((v) => v.id === id);

test('docforge render writes both declared views', () => {
  assert.deepEqual(views.map((v) => [v.id, v.renderer, v.output]), [
    ['architecture', 'html-site@1', 'site/architecture'],
    ['pages', 'html-page@1', 'site/pages'],
  ]);
});

/**
 * Visit every page of a view from its start pages, following every local link: each page
 * answers 200, has no <script>, has the CSP <meta>, and logs no error or CSP violation; each
 * local href stays in the output and resolves; each #fragment names an element of its target
 * page and loading it with that hash scrolls the element into view.
 */
async function checkView(id) {
  const { renderer, output } = view(id);
  const dir = path.join(root, output);
  const all = htmlFiles(dir);
  const server = await serve(dir);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`${page.url()}: console error: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  page.on('response', (r) => r.status() !== 200 && problems.push(`${r.url()}: HTTP ${r.status()}`));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) =>
    console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
  try {
    const queue = renderer === 'html-site@1' ? ['index.html'] : [...all];
    const ids = new Map(); // page -> the ids on it
    const fragments = new Map(); // JSON [page, id] -> where it was linked from
    const status = new Map(); // URL -> HTTP status
    while (queue.length) {
      const rel = queue.shift();
      if (ids.has(rel)) continue;
      const res = await page.goto(base + rel);
      assert.equal(res.status(), 200, rel);
      const facts = await page.evaluate(() => ({
        scripts: document.querySelectorAll('script').length,
        csp: [...document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]')].map((m) => m.content),
        ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
        hrefs: [...document.querySelectorAll('[href], [src]')].map((e) => e.getAttribute('href') ?? e.getAttribute('src')),
      }));
      assert.equal(facts.scripts, 0, `${rel} has a <script> element`);
      assert.deepEqual(facts.csp, [CSP], `${rel}: the Content-Security-Policy <meta>`);
      ids.set(rel, new Set(facts.ids));
      for (const href of facts.hrefs) {
        assert.doesNotMatch(href, /^\s*javascript:/i, rel);
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // not local
        const [rawPath, frag] = href.split('#');
        const joined = path.posix.normalize(path.posix.join(path.posix.dirname(rel), rawPath || path.posix.basename(rel)));
        assert.notEqual(joined.split('/')[0], '..', `${rel}: ${href} leaves the output`);
        const url = new URL(href, base + rel);
        url.hash = '';
        if (!status.has(url.href)) status.set(url.href, (await fetch(url)).status);
        assert.equal(status.get(url.href), 200, `${rel}: ${href}`);
        const target = decodeURIComponent(url.pathname.slice(1));
        if (target.endsWith('.html')) queue.push(target);
        if (frag) fragments.set(JSON.stringify([target, decodeURIComponent(frag)]), `${rel}: ${href}`);
      }
    }
    assert.deepEqual([...ids.keys()].sort(), all, 'every page of the output is visited');
    assert.ok(fragments.size > 0);
    for (const [key, from] of fragments) {
      const [target, id] = JSON.parse(key);
      assert.ok(ids.get(target).has(id), `${from}: no element with id "${id}" on ${target}`);
      await page.goto(`${base}${target}#${encodeURIComponent(id)}`);
      // Scrolled to it: the element is at the top of the viewport (layout rounds to less than
      // a pixel), or the page could scroll no further.
      const landed = await page.evaluate((id) => {
        const top = document.getElementById(id).getBoundingClientRect().top;
        const end = Math.ceil(scrollY + innerHeight) >= document.documentElement.scrollHeight;
        return { target: document.querySelector(':target')?.id, scrolled: Math.abs(top) < 1 || (top > 0 && end) };
      }, id);
      assert.deepEqual(landed, { target: id, scrolled: true }, `${from}: scrolled to #${id}`);
    }
    assert.deepEqual(problems, []);
    return all;
  } finally {
    await page.close();
    server.close();
    server.closeAllConnections();
  }
}

test('every page of the architecture site (html-site@1), from its index.html', async () => {
  const pages = await checkView('architecture');
  assert.deepEqual(pages, [
    'docs/arch/service.html', 'docs/arch/storage.html',
    'docs/decisions/pointer-receivers.html', 'docs/decisions/value-receivers.html', 'index.html',
  ]);
});

test('every page of the pages view (html-page@1), from every .html file', async () => {
  const pages = await checkView('pages');
  assert.deepEqual(pages, [
    'docs/arch/service.html', 'docs/arch/storage.html',
    'docs/decisions/pointer-receivers.html', 'docs/decisions/value-receivers.html',
    'docs/glossary.toml.html', 'docs/guide/getting-started.html', 'docs/notes.html',
  ]);
});

test('a screenshot of the storage page of the site', async () => {
  const server = await serve(path.join(root, view('architecture').output));
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    const res = await page.goto(`http://127.0.0.1:${server.address().port}/docs/arch/storage.html`);
    assert.equal(res.status(), 200);
    assert.equal(await page.title(), 'Storage · architecture');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const png = path.join(ARTIFACTS, 'storage.png');
    await page.screenshot({ path: png, fullPage: true });
    assert.ok(fs.statSync(png).size > 0);
  } finally {
    await page.close();
    server.close();
    server.closeAllConnections();
  }
});

-- End to end: headless Neovim (0.7+) attached to `docforge lsp` through editors/nvim on a
-- copy of fixtures/shop. Exercises diagnostics, incremental edits, definition, references,
-- hover and rename, then a second workspace folder (a copy of fixtures/roots-b) added and
-- removed. Exits non-zero (cquit) on any failed assertion.
local repo = os.getenv('REPO')
local root = os.getenv('DOCFORGE_ROOT')
local bin = os.getenv('DOCFORGE_BIN')
vim.opt.runtimepath:prepend(repo .. '/editors/nvim')
local docforge = require('docforge')

local failures = 0
local function log(msg)
  io.stdout:write(msg .. '\n')
end
local function check(cond, what, detail)
  if cond then
    log('ok   ' .. what)
  else
    failures = failures + 1
    log('FAIL ' .. what .. (detail and (': ' .. vim.inspect(detail)) or ''))
  end
end

local function open(rel)
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  local id = docforge.attach(buf, { cmd = bin, root_dir = root })
  return buf, id
end

-- LSP position of `needle` in a buffer (ASCII lines: bytes = UTF-16 units), plus `skip`.
local function pos(buf, needle, skip)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find(needle, 1, true)
    if s then
      return {
        textDocument = { uri = vim.uri_from_bufnr(buf) },
        position = { line = i - 1, character = s - 1 + (skip or 0) },
      }
    end
  end
  error('not found: ' .. needle)
end

local function diag_codes(buf)
  local codes = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(codes, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?')
  end
  table.sort(codes)
  return codes
end

local service, id = open('docs/arch/service.md')
check(id ~= nil, 'the server starts')
local client = vim.lsp.get_client_by_id(id)
check(vim.wait(20000, function()
  return client.initialized or client.server_capabilities ~= nil
end, 50), 'initialize handshake')

local function request(method, params, buf)
  local res, err = client.request_sync(method, params, 10000, buf)
  if not res then
    return nil, err
  end
  if res.err then
    return nil, res.err
  end
  return res.result
end

-- Diagnostics: the guide has two broken links.
local guide = open('docs/guide/getting-started.md')
check(vim.wait(20000, function()
  return #vim.diagnostic.get(guide) == 2
end, 50), 'two broken-link diagnostics in the guide', vim.diagnostic.get(guide))
check(vim.deep_equal(diag_codes(guide), { 'broken_link', 'broken_link' }), 'their code is broken_link', diag_codes(guide))

-- An incremental edit fixes one link; the diagnostics are pushed again.
local p = pos(guide, '../arch/deployment.md')
local line = vim.api.nvim_buf_get_lines(guide, p.position.line, p.position.line + 1, false)[1]
local fixed = line:gsub('%.%./arch/deployment%.md', '../arch/storage.md')
vim.api.nvim_buf_set_lines(guide, p.position.line, p.position.line + 1, false, { fixed })
check(vim.wait(20000, function()
  return #vim.diagnostic.get(guide) == 1
end, 50), 'the fixed link is no longer reported', vim.diagnostic.get(guide))

-- Definition: a Markdown link to a heading, a relation target, a go: link.
local def = request('textDocument/definition', pos(service, '[storage interfaces]', 2), service)
local loc = def and (def[1] or def)
check(loc and loc.uri:match('docs/arch/storage%.md$') and loc.range.start.line == 35, 'definition of a heading link', def)
def = request('textDocument/definition', pos(service, 'arch.storage"', 1), service)
loc = def and (def[1] or def)
check(loc and loc.uri:match('docs/arch/storage%.md$') and loc.range.start.line == 1, 'definition of a relation target', def)
def = request('textDocument/definition', pos(service, '[`Place`](go:', 3), service)
loc = def and (def[1] or def)
check(loc and loc.uri:match('service/service%.go$') and loc.range.start.line == 42, 'definition of a go: link', def)

-- References: who links to arch.storage (the link fixed above is one of them now).
local refs = request('textDocument/references', vim.tbl_extend('force', pos(service, 'arch.storage"', 1), {
  context = { includeDeclaration = false },
}), service)
local from_guide = refs and vim.tbl_filter(function(r)
  return r.uri:match('getting%-started%.md$') ~= nil
end, refs) or {}
check(refs and #refs == 4 and #from_guide == 1, 'four references to arch.storage, one from the edited buffer', refs)

-- Hover: the node card.
local hover = request('textDocument/hover', pos(service, 'arch.storage"', 1), service)
local text = hover and hover.contents and hover.contents.value or ''
check(text:find('kind: document', 1, true) and text:find('family: architecture', 1, true), 'hover shows the node card', text)

-- A standard-library name: the server finds the Go installation of the `go` on PATH (as it
-- would for a user: no configuration) and goes to the declaration there.
local main_go = open('cmd/shop/main.go')
def = request('textDocument/definition', pos(main_go, 'fmt.Printf(', 5), main_go)
loc = def and (def[1] or def)
check(loc and loc.uri:match('/src/fmt/print%.go$'), 'definition of fmt.Printf in the Go installation', def)
hover = request('textDocument/hover', pos(main_go, 'fmt.Printf(', 5), main_go)
text = hover and hover.contents and hover.contents.value or ''
check(text:find('func Printf(format string', 1, true) and text:find('Printf formats according to a format specifier', 1, true),
  'hover shows fmt.Printf\'s signature and doc comment', text)

-- A method of a standard-library type (the semantic layer reads the installation's types).
local memory_go = open('storage/memory/memory.go')
def = request('textDocument/definition', pos(memory_go, 'r.mu.Lock()', 5), memory_go)
loc = def and (def[1] or def)
check(loc and loc.uri:match('/src/sync/mutex%.go$'), 'definition of sync.Mutex.Lock in the Go installation', def)

-- Rename the document ID everywhere, applied by Neovim itself.
local edit = request('textDocument/rename', vim.tbl_extend('force', pos(service, 'arch.storage"', 1), {
  newName = 'arch.store',
}), service)
check(edit and edit.changes, 'rename answers a workspace edit', edit)
if edit then
  vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding or 'utf-16')
end
local storage_buf = vim.fn.bufadd(root .. '/docs/arch/storage.md')
vim.fn.bufload(storage_buf)
local id_line = vim.api.nvim_buf_get_lines(storage_buf, 1, 2, false)[1]
check(id_line == 'id = "arch.store"', 'the front-matter id is renamed', id_line)
local dep = table.concat(vim.api.nvim_buf_get_lines(service, 0, -1, false), '\n')
check(dep:find('depends_on = ["arch.store"]', 1, true), 'the relation target is renamed')
local refused, err = request('textDocument/rename', vim.tbl_extend('force', pos(guide, '[[docs/notes]]', 3), {
  newName = 'notes',
}), guide)
check(refused == nil and err and tostring(err.message):find('no front%-matter'), 'a path-derived ID is refused', err)

-- Multi-root: a second project added as a workspace folder of the same client (Neovim's own
-- add/remove_workspace_folder) is served next to the first, and cleared when removed.
local root_b = os.getenv('DOCFORGE_ROOT_B')
vim.api.nvim_set_current_buf(service)
vim.lsp.buf.add_workspace_folder(root_b)
vim.cmd('edit ' .. vim.fn.fnameescape(root_b .. '/docs/intro.md'))
local intro = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(intro, id)
check(vim.wait(20000, function()
  return #vim.diagnostic.get(intro) == 1
end, 50), 'the added folder publishes its diagnostics (one broken link)', vim.diagnostic.get(intro))
def = request('textDocument/definition', pos(intro, '[[b.storage-notes]]', 3), intro)
loc = def and (def[1] or def)
check(loc and loc.uri:match('roots%-b/docs/storage%-notes%.md$') and loc.range.start.line == 1, 'definition in the added folder', def)
local symbols = request('workspace/symbol', { query = 'storage' }, intro) or {}
local from = { shop = 0, b = 0 }
for _, s in ipairs(symbols) do
  if s.location.uri:match('/shop/') then
    from.shop = from.shop + 1
  elseif s.location.uri:match('/roots%-b/') then
    from.b = from.b + 1
  end
end
check(from.shop > 0 and from.b > 0, 'workspace symbols from both folders', from)
vim.lsp.buf.remove_workspace_folder(root_b)
check(vim.wait(20000, function()
  return #vim.diagnostic.get(intro) == 0
end, 50), 'removing the folder clears its diagnostics', vim.diagnostic.get(intro))
def = request('textDocument/definition', pos(intro, '[[b.storage-notes]]', 3), intro)
check(def == nil or vim.tbl_isempty(def), 'a file of the removed folder has no definition', def)

vim.lsp.stop_client(id)
vim.wait(5000, function()
  return vim.lsp.get_client_by_id(id) == nil
end, 50)
if failures > 0 then
  log(failures .. ' assertion(s) failed')
  vim.cmd('cquit 1')
else
  log('all Neovim assertions passed')
  vim.cmd('qall!')
end

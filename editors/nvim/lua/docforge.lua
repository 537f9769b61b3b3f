-- DocForge language server for Neovim 0.7+ (vim.lsp.start_client / buf_attach_client; no
-- lspconfig needed). One client per project root.
--
--   require('docforge').setup({ cmd = 'docforge', no_ast = false })
local M = {}

local clients = {} -- root dir -> client id

M.defaults = {
  cmd = 'docforge', -- path to the docforge binary
  no_ast = false, -- pass --no-ast (documents only, Go files inventoried)
  no_precise = false, -- pass --no-precise (no implementation / call hierarchy)
  -- Go installation whose standard library definition/hover/references read: nil discovers
  -- it ($GOROOT, else the `go` on PATH), a path passes --goroot, false passes --no-goroot.
  goroot = nil,
  -- Go module cache for the required modules: nil discovers it ($GOMODCACHE, $GOPATH/pkg/mod,
  -- ~/go/pkg/mod), a path passes --gomodcache, false passes --no-gomodcache.
  gomodcache = nil,
  filetypes = { 'markdown', 'go', 'toml' },
  root_markers = { 'docforge.toml', 'go.work', 'go.mod', '.git' },
}

local function merged(opts)
  return vim.tbl_extend('force', M.defaults, opts or {})
end

-- The nearest directory above `path` holding one of the root markers (first marker wins).
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  for _, marker in ipairs(markers) do
    local file = vim.fn.findfile(marker, dir .. ';')
    if file ~= '' then
      return vim.fn.fnamemodify(file, ':p:h')
    end
    local found = vim.fn.finddir(marker, dir .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h')
    end
  end
  return nil
end

function M.command(opts)
  local cmd = { opts.cmd, 'lsp' }
  if opts.no_ast then
    table.insert(cmd, '--no-ast')
  end
  if opts.no_precise then
    table.insert(cmd, '--no-precise')
  end
  -- nil: the server finds the directory; false: --no-<flag>; a path: --<flag> PATH.
  for _, flag in ipairs({ 'goroot', 'gomodcache' }) do
    if opts[flag] == false then
      table.insert(cmd, '--no-' .. flag)
    elseif type(opts[flag]) == 'string' then
      table.insert(cmd, '--' .. flag)
      table.insert(cmd, opts[flag])
    end
  end
  return cmd
end

-- Start (once per root) and attach the server to `bufnr`; returns the client id.
function M.attach(bufnr, opts)
  opts = merged(opts)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = opts.root_dir or M.find_root(name, opts.root_markers)
  if not root then
    return nil
  end
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client({
      name = 'docforge',
      cmd = M.command(opts),
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    })
    clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

function M.setup(opts)
  opts = merged(opts)
  vim.api.nvim_create_autocmd('FileType', {
    pattern = opts.filetypes,
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
end

return M

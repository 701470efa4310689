--- arbor-ls for Neovim: `require('arbor').setup{...}` starts the server for the configured
--- filetypes and shows its inline completions as ghost text. See `:help arbor`.
local completion = require('arbor.completion')
local config = require('arbor.config')
local cursor = require('arbor.cursor')
local lsp = require('arbor.lsp')

local M = {}

--- @type arbor.Options|nil
M.opts = nil

local function define_highlight()
  vim.api.nvim_set_hl(0, 'ArborGhostText', { link = 'Comment', default = true })
end

--- An insert-mode mapping that runs `action` when ghost text is shown and types `key` otherwise.
local function map_key(buf, key, action, desc)
  if not key then
    return
  end
  vim.keymap.set('i', key, function()
    if completion.visible(buf) then
      return ('<Cmd>lua require("arbor").%s()<CR>'):format(action)
    end
    return key
  end, { buffer = buf, expr = true, replace_keycodes = true, desc = desc })
end

local function on_attach(_, buf)
  completion.attach(buf)
  cursor.attach(buf)
  local keys = M.opts.keymaps
  map_key(buf, keys.accept, 'accept', 'arbor: accept the completion')
  map_key(buf, keys.accept_word, 'accept_word', 'arbor: accept the next word')
  map_key(buf, keys.accept_line, 'accept_line', 'arbor: accept the next line')
  map_key(buf, keys.dismiss, 'dismiss', 'arbor: dismiss the completion')
end

local function wants(buf)
  local filetypes = M.opts.filetypes
  if vim.tbl_contains(filetypes, '*') then
    return true
  end
  return vim.tbl_contains(filetypes, vim.bo[buf].filetype)
end

--- Starts arbor-ls for `buf` (the current buffer by default) if its filetype is configured.
function M.attach(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  if M.opts and wants(buf) then
    lsp.start(buf, M.opts, on_attach, completion.on_ready)
  end
end

--- @param opts table|nil see `:help arbor-setup`
function M.setup(opts)
  M.opts = config.resolve(opts)
  completion.opts = M.opts
  completion.enabled = M.opts.enabled
  define_highlight()
  local group = vim.api.nvim_create_augroup('arbor', { clear = true })
  vim.api.nvim_create_autocmd('ColorScheme', { group = group, callback = define_highlight })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    callback = function(event)
      M.attach(event.buf)
    end,
  })
  -- Buffers already open when setup runs (lazy loading) get the server too.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype ~= '' then
      M.attach(buf)
    end
  end
end

function M.accept()
  return completion.accept('full')
end

function M.accept_word()
  return completion.accept('word')
end

function M.accept_line()
  return completion.accept('line')
end

function M.dismiss()
  return completion.dismiss()
end

--- True when ghost text is shown in `buf` (the current buffer by default); for custom mappings.
function M.visible(buf)
  return completion.visible(buf)
end

--- Turns completion requests on or off (`:ArborToggle`); returns the new state.
function M.toggle(enabled)
  if enabled == nil then
    enabled = not completion.enabled
  end
  completion.set_enabled(enabled)
  return enabled
end

--- Replaces the server settings and sends them to the running server(s).
function M.update_settings(settings)
  assert(type(settings) == 'table', 'arbor.update_settings: expected a table')
  if M.opts then
    M.opts.settings = vim.deepcopy(settings)
  end
  lsp.push_settings(settings)
end

--- The last `arbor/status` of the current buffer's client: {state, backend, breaker, message}.
function M.status(buf)
  local client = lsp.client_for(buf or vim.api.nvim_get_current_buf()) or lsp.any_client()
  if not client then
    return nil
  end
  return lsp.status[client.id] or { state = 'idle' }
end

--- A short text for a statusline: '' without a server, else e.g. 'arbor: idle',
--- 'arbor: loading model' or 'arbor: backend down (breaker open)'.
function M.statusline()
  local status = M.status()
  if not status then
    return ''
  end
  if not completion.enabled then
    return 'arbor: off'
  end
  if status.state == 'loading' then
    return 'arbor: loading model'
  end
  if status.state == 'error' then
    return status.breaker and ('arbor: backend down (breaker %s)'):format(status.breaker) or 'arbor: backend down'
  end
  return 'arbor: ' .. (status.state or 'idle')
end

return M

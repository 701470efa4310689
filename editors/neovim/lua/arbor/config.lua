--- Options of `require('arbor').setup{...}`: defaults, validation and merging.
---
--- Invariant: `resolve(user)` returns a fresh table with every field present and of the right
--- type; a bad option raises an error naming the option at setup, never a later crash.
local M = {}

--- @class arbor.Keymaps
--- @field accept string|false       accept the whole completion (falls back to the key itself)
--- @field accept_word string|false  accept the next word
--- @field accept_line string|false  accept the rest of the line (or the next line)
--- @field dismiss string|false      hide the completion and tell the server it was rejected

--- @class arbor.Options
--- @field cmd string[]              the server command
--- @field settings table            sent as `initializationOptions` and `workspace/didChangeConfiguration`
--- @field filetypes string[]        buffers of these filetypes get the server ('*' means every file buffer)
--- @field debounce_ms integer       idle time after a keystroke before a completion is requested
--- @field keymaps arbor.Keymaps
--- @field root_markers string[]     files or directories that mark the workspace root
--- @field hl_group string           highlight group of the ghost text
--- @field enabled boolean           whether completions are requested at all (`:ArborToggle`)

M.defaults = {
  cmd = { 'arbor-ls' },
  settings = {},
  filetypes = {
    'python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact',
    'go', 'rust', 'java', 'c', 'cpp',
  },
  debounce_ms = 75,
  keymaps = {
    accept = '<Tab>',
    accept_word = '<M-w>',
    accept_line = '<M-l>',
    dismiss = '<C-]>',
  },
  root_markers = { '.git', 'pyproject.toml', 'package.json', 'go.mod', 'Cargo.toml', '.hg' },
  hl_group = 'ArborGhostText',
  enabled = true,
}

local function check(name, value, ok, expected)
  if not ok(value) then
    error(('arbor.setup: %s: expected %s, got %s'):format(name, expected, vim.inspect(value)), 3)
  end
end

local function is_table(v)
  return type(v) == 'table'
end

local function is_key(value)
  return value == false or (type(value) == 'string' and value ~= '')
end

local function is_string_list(value)
  if type(value) ~= 'table' then
    return false
  end
  for _, item in ipairs(value) do
    if type(item) ~= 'string' then
      return false
    end
  end
  return true
end

--- @param user table|nil
--- @return arbor.Options
function M.resolve(user)
  user = user or {}
  check('opts', user, is_table, 'a table')
  local opts = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user)
  -- Lists replace the defaults instead of being merged index by index.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if user[key] ~= nil then
      opts[key] = vim.deepcopy(user[key])
    end
  end
  if user.settings ~= nil then
    opts.settings = vim.deepcopy(user.settings)
  end
  check('cmd', opts.cmd, function(v)
    return is_string_list(v) and #v > 0
  end, 'a non-empty list of strings')
  check('settings', opts.settings, is_table, 'a table')
  check('filetypes', opts.filetypes, is_string_list, 'a list of strings')
  check('root_markers', opts.root_markers, is_string_list, 'a list of strings')
  check('debounce_ms', opts.debounce_ms, function(v)
    return type(v) == 'number' and v >= 0
  end, 'a number >= 0')
  check('hl_group', opts.hl_group, function(v)
    return type(v) == 'string'
  end, 'a string')
  check('enabled', opts.enabled, function(v)
    return type(v) == 'boolean'
  end, 'a boolean')
  check('keymaps', opts.keymaps, is_table, 'a table')
  for name in pairs(M.defaults.keymaps) do
    check('keymaps.' .. name, opts.keymaps[name], is_key, 'a key string or false')
  end
  for name in pairs(opts.keymaps) do
    if M.defaults.keymaps[name] == nil then
      error(('arbor: unknown keymap %q (known: accept, accept_word, accept_line, dismiss)'):format(name))
    end
  end
  return opts
end

return M

--- `:ArborStatus` and `:ArborContext`: what the server says, shown in the editor.
local lsp = require('arbor.lsp')

local M = {}

local function is_list(value)
  local islist = vim.islist or vim.tbl_islist
  return islist(value)
end

--- Pretty JSON with sorted keys and two-space indentation (deterministic, for reading).
--- @param value any a value decoded from JSON (vim.NIL for null)
--- @return string
function M.pretty_json(value, indent)
  indent = indent or ''
  local inner = indent .. '  '
  if value == nil or value == vim.NIL then
    return 'null'
  end
  local kind = type(value)
  if kind == 'string' or kind == 'number' or kind == 'boolean' then
    return vim.json.encode(value)
  end
  if kind ~= 'table' then
    return vim.json.encode(tostring(value))
  end
  if next(value) == nil then
    return getmetatable(value) == getmetatable(vim.empty_dict()) and '{}' or '[]'
  end
  local parts = {}
  if is_list(value) then
    for _, item in ipairs(value) do
      parts[#parts + 1] = inner .. M.pretty_json(item, inner)
    end
    return '[\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. ']'
  end
  local keys = vim.tbl_keys(value)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  for _, key in ipairs(keys) do
    parts[#parts + 1] = inner .. vim.json.encode(tostring(key)) .. ': ' .. M.pretty_json(value[key], inner)
  end
  return '{\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. '}'
end

--- Opens a scratch buffer in a split showing `lines`.
function M.scratch(name, lines, filetype)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype or 'json'
  return buf
end

local function client_or_warn()
  local client = lsp.client_for(vim.api.nvim_get_current_buf()) or lsp.any_client()
  if not client then
    vim.notify('arbor: the server is not running (is this filetype configured?)', vim.log.levels.WARN)
  end
  return client
end

--- One line on acceptance from `arbor/stats`' `acceptance` object, or nil when nothing was shown.
function M.acceptance_line(a)
  if type(a) ~= 'table' or type(a.rate) ~= 'number' then
    return nil
  end
  return ('acceptance: %d of %d shown (%.0f%%) · %.2f accepted chars per shown char'):format(
    a.acceptedCompletions or 0, a.shown or 0, 100 * a.rate, a.charsPerShownChar or 0)
end

--- `:ArborStatus`: the server's state, backend and breaker, then its counters (`arbor/stats`).
function M.status()
  local client = client_or_warn()
  if not client then
    return
  end
  local status = lsp.status[client.id] or { state = 'idle' }
  local head = ('arbor-ls: %s · backend %s · breaker %s%s'):format(
    status.state or '?',
    status.backend ~= nil and status.backend ~= '' and status.backend or '-',
    status.breaker or '-',
    status.message ~= nil and status.message ~= '' and (' · ' .. status.message) or ''
  )
  lsp.request(client, 'arbor/stats', vim.empty_dict(), function(err, result)
    local lines = { head }
    if err then
      lines[#lines + 1] = 'arbor/stats failed: ' .. (err.message or vim.inspect(err))
    elseif result ~= nil and result ~= vim.NIL then
      local counters = result.counters or {}
      local names = vim.tbl_keys(counters)
      table.sort(names)
      local shown = {}
      for _, name in ipairs(names) do
        shown[#shown + 1] = ('%s=%s'):format(name, tostring(counters[name]))
      end
      lines[#lines + 1] = 'counters: ' .. (#shown > 0 and table.concat(shown, ' ') or '-')
      local acceptance = M.acceptance_line(result.acceptance)
      if acceptance then
        lines[#lines + 1] = acceptance
      end
      local latency = result.latencyMs or {}
      if latency.p50 then
        lines[#lines + 1] = ('latency ms: p50 %.0f · p95 %.0f · max %.0f'):format(latency.p50, latency.p95 or 0, latency.max or 0)
      end
    end
    vim.api.nvim_echo({ { table.concat(lines, '\n') } }, true, {})
  end)
end

--- `:ArborContext`: the last prompt's context (`arbor/context`) in a scratch buffer.
function M.context()
  local client = client_or_warn()
  if not client then
    return
  end
  lsp.request(client, 'arbor/context', vim.empty_dict(), function(err, result)
    if err then
      vim.notify('arbor: arbor/context failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if result == nil or result == vim.NIL then
      vim.notify('arbor: no completion has been requested yet', vim.log.levels.INFO)
      return
    end
    M.scratch('arbor://context', vim.split(M.pretty_json(result), '\n', { plain = true }), 'json')
  end)
end

return M

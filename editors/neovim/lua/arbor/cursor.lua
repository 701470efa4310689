--- Tells the server where the cursor rests (`arbor/cursor`), so that it can prefill the prompt a
--- completion there would send before the user types.
---
--- Rule: after `CursorMoved`, `CursorMovedI` or `InsertEnter`, a cursor that stays put for
--- `REST_MS` in the current buffer is reported once with the buffer's LSP version and the position
--- in the client's encoding; a move before then restarts the wait; the same (version, position)
--- is never reported twice in a row. Nothing is sent while completions are disabled.
local lsp = require('arbor.lsp')
local text = require('arbor.text')

local M = {}

M.REST_MS = 150

local uv = vim.uv or vim.loop
local states = {}

local function report(buf, state)
  local completion = require('arbor.completion')
  if not completion.enabled or vim.api.nvim_get_current_buf() ~= buf then
    return
  end
  local client = lsp.client_for(buf)
  local version = vim.lsp.util.buf_versions[buf]
  if not client or not version then
    return
  end
  local pos = vim.api.nvim_win_get_cursor(0)
  local row = pos[1] - 1
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  local character = text.units(line, pos[2], client.offset_encoding or 'utf-16')
  local key = table.concat({ version, row, character }, ':')
  if key == state.last then
    return
  end
  state.last = key
  lsp.notify(client, 'arbor/cursor', {
    textDocument = { uri = vim.uri_from_bufnr(buf), version = version },
    position = { line = row, character = character },
  })
end

function M.attach(buf)
  if states[buf] then
    return
  end
  local state = { timer = uv.new_timer(), last = nil }
  states[buf] = state
  local group = vim.api.nvim_create_augroup('arbor_cursor_' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'InsertEnter' }, {
    group = group,
    buffer = buf,
    callback = function()
      state.timer:stop()
      state.timer:start(M.REST_MS, 0, vim.schedule_wrap(function()
        report(buf, state)
      end))
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = group,
    buffer = buf,
    callback = function()
      M.detach(buf)
    end,
  })
end

function M.detach(buf)
  local state = states[buf]
  if not state then
    return
  end
  state.timer:stop()
  state.timer:close()
  states[buf] = nil
  pcall(vim.api.nvim_del_augroup_by_name, 'arbor_cursor_' .. buf)
end

return M

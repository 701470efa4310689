--- Inline completion in one buffer: debounce, request, cancel, show, accept, dismiss.
---
--- Invariants:
--- - At most one `textDocument/inlineCompletion` request per buffer is in flight. A text change
---   cancels it (`$/cancelRequest`): its answer would be for an outdated buffer version.
--- - An answer is shown only if the buffer's changedtick and the cursor are what they were when
---   the request was sent, and the buffer is still current and in Insert mode.
--- - Ghost text is cleared when the cursor moves without a text change, when Insert mode is left
---   and when the buffer is left; typing the ghost's own next characters keeps the rest shown.
--- - `arbor/completionReady` (a cancelled request's answer is in the server's cache) sends one new
---   request, and only when it names the current buffer at the version last sent to the server,
---   the cursor is exactly at its position in Insert mode, and nothing is shown or asked there yet.
--- - `arbor/shown` is sent once per completion: when ghost text appears that is not the rest of the
---   completion already shown (typed through, accepted in part, or answered again from the cache).
---   Feedback counts characters (`strchars`), not bytes.
local ghost_view = require('arbor.ghost')
local lsp = require('arbor.lsp')
local text = require('arbor.text')

local M = {}

local uv = vim.uv or vim.loop
local TRIGGER_AUTOMATIC = 2
local MAX_EVENTS = 200

--- Per-buffer state. `ghost`: {row, col, text, replace_end, line, tick}; `inflight`: {id, client, tick, row, col};
--- `shown`: the text of the completion reported by `arbor/shown`, while any of it is on screen.
local states = {}

--- @type arbor.Options
M.opts = nil
M.enabled = true

local function resolve(buf)
  return (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
end

local function now_ms()
  return uv.hrtime() / 1e6
end

local function record(state, kind, fields)
  local event = fields or {}
  event.kind = kind
  event.ms = now_ms()
  table.insert(state.events, event)
  if #state.events > MAX_EVENTS then
    table.remove(state.events, 1)
  end
end

local function cursor()
  local pos = vim.api.nvim_win_get_cursor(0)
  return pos[1] - 1, pos[2]
end

local function in_insert_mode()
  return vim.api.nvim_get_mode().mode:sub(1, 1) == 'i'
end

local function current_line(buf, row)
  return vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
end

local function send_feedback(buf, method, params)
  local client = lsp.client_for(buf)
  if client then
    params.uri = vim.uri_from_bufnr(buf)
    params.client = 'neovim'
    lsp.notify(client, method, params)
  end
end

local function chars(s)
  return vim.fn.strchars(s)
end

local function cancel_inflight(buf, state, reason)
  local req = state.inflight
  if not req then
    return
  end
  state.inflight = nil
  lsp.cancel(req.client, req.id)
  record(state, 'cancel', { id = req.id, tick = req.tick, reason = reason })
end

local function clear(buf, state, reason, reject)
  local ghost = state.ghost
  if not ghost then
    return
  end
  local shown = state.shown
  state.ghost = nil
  state.shown = nil
  ghost_view.clear(buf)
  record(state, 'clear', { reason = reason })
  if reject then
    send_feedback(buf, 'arbor/rejected', { shownChars = chars(shown or ghost.text), reason = reject })
  end
end

local function show(buf, state, row, col, ghost)
  local continued = state.ghost ~= nil and state.shown ~= nil and vim.endswith(state.shown, ghost.text)
  if not continued then
    state.shown = ghost.text
    send_feedback(buf, 'arbor/shown', { shownChars = chars(ghost.text) })
  end
  state.ghost = {
    row = row,
    col = col,
    text = ghost.text,
    replace_end = ghost.replace_end,
    line = current_line(buf, row),
    tick = vim.api.nvim_buf_get_changedtick(buf),
  }
  ghost_view.show(buf, row, col, ghost.text, M.opts.hl_group)
  record(state, 'show', { row = row, col = col, text = ghost.text })
end

--- The first item of an inlineCompletion result that yields ghost text at (row, col).
local function pick(buf, client, result, row, col)
  if type(result) ~= 'table' then
    return nil -- nil or vim.NIL: no completion
  end
  local items = type(result.items) == 'table' and result.items or result
  local line = current_line(buf, row)
  for _, item in ipairs(items) do
    local insert = item.insertText
    if type(insert) == 'table' then
      insert = text.snippet_text(insert.value or '')
    end
    local range
    if type(item.range) == 'table' then
      local s, e = item.range.start, item.range['end']
      if s.line ~= row or e.line ~= row then
        goto continue
      end
      local encoding = client.offset_encoding or 'utf-16'
      range = { start_col = text.byte_col(line, s.character, encoding), end_col = text.byte_col(line, e.character, encoding) }
    end
    if type(insert) == 'string' then
      local ghost = text.ghost(line, col, insert, range)
      if ghost then
        return ghost
      end
    end
    ::continue::
  end
  return nil
end

local function on_response(buf, state, req, err, result)
  if state.inflight ~= req then
    record(state, 'ignored', { id = req.id })
    return
  end
  state.inflight = nil
  if err then
    record(state, 'error', { id = req.id, message = err.message })
    return
  end
  local row, col = cursor()
  local fresh = vim.api.nvim_buf_is_valid(buf)
    and vim.api.nvim_get_current_buf() == buf
    and vim.api.nvim_buf_get_changedtick(buf) == req.tick
    and row == req.row
    and col == req.col
    and in_insert_mode()
  if not fresh then
    record(state, 'stale', { id = req.id, tick = req.tick })
    return
  end
  local ghost = pick(buf, req.client, result, row, col)
  record(state, 'response', { id = req.id, chars = ghost and #ghost.text or 0 })
  if ghost then
    show(buf, state, row, col, ghost)
  end
end

--- Sends a request for the cursor position of the current buffer now.
function M.request(buf)
  local state = states[buf]
  if not state or not M.enabled or vim.api.nvim_get_current_buf() ~= buf or not in_insert_mode() then
    return
  end
  local client = lsp.client_for(buf)
  if not client then
    return
  end
  cancel_inflight(buf, state, 'replaced')
  local row, col = cursor()
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or 'utf-16')
  params.context = { triggerKind = TRIGGER_AUTOMATIC }
  local req = { client = client, tick = vim.api.nvim_buf_get_changedtick(buf), row = row, col = col }
  local ok, id = lsp.request(client, 'textDocument/inlineCompletion', params, function(err, result)
    on_response(buf, state, req, err, result)
  end, buf)
  if ok and id then
    req.id = id
    state.inflight = req
    record(state, 'request', { id = id, tick = req.tick, row = row, col = col })
  end
end

--- Requests a completion after `debounce_ms` without further changes.
function M.schedule(buf)
  local state = states[buf]
  if not state or not M.enabled then
    return
  end
  state.timer:stop()
  state.timer:start(M.opts.debounce_ms, 0, vim.schedule_wrap(function()
    M.request(buf)
  end))
end

local function on_text_changed(buf, state)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  if state.own_tick == tick then
    return -- our own partial accept; the ghost is already up to date
  end
  cancel_inflight(buf, state, 'outdated')
  local ghost = state.ghost
  if ghost then
    local row, col = cursor()
    local rest = row == ghost.row and text.type_through(ghost.line, ghost.col, ghost.text, current_line(buf, row), col)
    if rest and rest ~= '' then
      show(buf, state, row, col, { text = rest, replace_end = col + (ghost.replace_end - ghost.col) })
    else
      clear(buf, state, 'typed')
    end
  end
  M.schedule(buf)
end

local function on_cursor_moved(buf, state)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local row, col = cursor()
  local ghost = state.ghost
  if ghost and ghost.tick == tick and (ghost.row ~= row or ghost.col ~= col) then
    clear(buf, state, 'moved', 'cleared')
  end
  local req = state.inflight
  if req and req.tick == tick and (req.row ~= row or req.col ~= col) then
    cancel_inflight(buf, state, 'moved')
  end
end

--- Clears everything for `buf`: timer, request, ghost (mode change, buffer left).
function M.reset(buf, reason)
  local state = states[buf]
  if not state then
    return
  end
  state.timer:stop()
  cancel_inflight(buf, state, reason)
  clear(buf, state, reason, 'cleared')
end

function M.attach(buf)
  if states[buf] then
    return
  end
  local state = { timer = uv.new_timer(), events = {}, ghost = nil, inflight = nil }
  states[buf] = state
  local group = vim.api.nvim_create_augroup('arbor_buf_' .. buf, { clear = true })
  local function on(events, fn)
    vim.api.nvim_create_autocmd(events, { group = group, buffer = buf, callback = fn })
  end
  on({ 'TextChangedI', 'TextChangedP' }, function()
    on_text_changed(buf, state)
  end)
  on('CursorMovedI', function()
    on_cursor_moved(buf, state)
  end)
  on('InsertLeave', function()
    M.reset(buf, 'insert_leave')
  end)
  on('ModeChanged', function()
    if not in_insert_mode() then
      M.reset(buf, 'mode')
    end
  end)
  on('BufLeave', function()
    M.reset(buf, 'buf_leave')
  end)
  on({ 'BufUnload', 'BufWipeout' }, function()
    M.detach(buf)
  end)
end

function M.detach(buf)
  local state = states[buf]
  if not state then
    return
  end
  M.reset(buf, 'detach')
  state.timer:close()
  states[buf] = nil
  pcall(vim.api.nvim_del_augroup_by_name, 'arbor_buf_' .. buf)
end

function M.visible(buf)
  local state = states[resolve(buf)]
  return state ~= nil and state.ghost ~= nil
end

--- Accepts the ghost text in the current buffer: `kind` is 'full', 'word' or 'line'.
--- Returns true if something was inserted.
function M.accept(kind)
  local buf = vim.api.nvim_get_current_buf()
  local state = states[buf]
  local ghost = state and state.ghost
  if not ghost then
    return false
  end
  local piece = kind == 'word' and text.next_word(ghost.text) or kind == 'line' and text.next_line(ghost.text) or ghost.text
  local whole = piece == ghost.text
  local replace_end = whole and ghost.replace_end or ghost.col
  cancel_inflight(buf, state, 'accepted')
  vim.api.nvim_buf_set_text(buf, ghost.row, ghost.col, ghost.row, replace_end, text.lines(piece))
  local row, col = text.end_position(ghost.row, ghost.col, piece)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  send_feedback(buf, 'arbor/accepted', { kind = kind, acceptedChars = chars(piece), shownChars = chars(state.shown or ghost.text) })
  record(state, 'accept', { part = kind, chars = #piece })
  if whole then
    state.ghost = nil
    state.shown = nil
    ghost_view.clear(buf)
  else
    state.own_tick = vim.api.nvim_buf_get_changedtick(buf)
    show(buf, state, row, col, { text = ghost.text:sub(#piece + 1), replace_end = col + (ghost.replace_end - ghost.col) })
  end
  return true
end

--- Hides the ghost text of the current buffer and reports it as rejected.
function M.dismiss()
  local buf = vim.api.nvim_get_current_buf()
  local state = states[buf]
  if not state or not state.ghost then
    return false
  end
  state.timer:stop()
  cancel_inflight(buf, state, 'dismissed')
  clear(buf, state, 'dismissed', 'dismissed')
  return true
end

--- Why an `arbor/completionReady` from `client` does or does not lead to a request in `buf`:
--- 'request', or the first rule it fails.
local function ready_verdict(buf, state, client, params)
  if not M.enabled then
    return 'disabled'
  end
  if not in_insert_mode() then
    return 'not_insert'
  end
  if vim.uri_from_bufnr(buf) ~= params.uri then
    return 'other_document'
  end
  local attached = lsp.client_for(buf)
  if not attached or attached.id ~= client.id then
    return 'other_client'
  end
  if vim.lsp.util.buf_versions[buf] ~= params.version then
    return 'other_version'
  end
  local row, col = cursor()
  local encoding = client.offset_encoding or 'utf-16'
  if params.position.line ~= row or params.position.character ~= text.units(current_line(buf, row), col, encoding) then
    return 'moved'
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local ghost = state.ghost
  if ghost and ghost.row == row and ghost.col == col and ghost.tick == tick then
    return 'shown'
  end
  local req = state.inflight
  if req and req.row == row and req.col == col and req.tick == tick then
    return 'inflight'
  end
  return 'request'
end

--- Handles `arbor/completionReady` {uri, version, position} from `client`: asks again (once) when
--- the announced completion is the one the current buffer would ask for now.
function M.on_ready(client, params)
  local buf = vim.api.nvim_get_current_buf()
  local state = states[buf]
  if not state then
    return
  end
  local verdict = ready_verdict(buf, state, client, params)
  record(state, 'ready', { verdict = verdict, version = params.version })
  if verdict == 'request' then
    M.request(buf)
  end
end

--- Recent events of `buf` (request, cancel, response, stale, show, clear, accept, ready), oldest first.
function M.events(buf)
  local state = states[resolve(buf)]
  return state and vim.deepcopy(state.events) or {}
end

function M.set_enabled(enabled)
  M.enabled = enabled
  if not enabled then
    for buf in pairs(states) do
      M.reset(buf, 'disabled')
    end
  end
end

return M

--- Pure text functions behind ghost text: no buffers, windows or LSP here.
---
--- Columns are 0-based byte offsets into a line (what extmarks and nvim_buf_set_text use);
--- LSP columns are converted with `byte_col` for the position encoding the client negotiated.
local M = {}

--- Splits text on "\n" into lines (a trailing "\n" gives a trailing empty line).
--- @param text string
--- @return string[]
function M.lines(text)
  return vim.split(text, '\n', { plain = true })
end

--- Converts an LSP character offset on `line` into a byte offset.
--- Offsets past the end clamp to the line's length; a unit inside a character rounds up to its end.
--- @param line string
--- @param units integer
--- @param encoding 'utf-8'|'utf-16'|'utf-32'
--- @return integer
function M.byte_col(line, units, encoding)
  if encoding == 'utf-8' then
    return math.min(units, #line)
  end
  local count, byte = 0, 0
  while byte < #line and count < units do
    local first = line:byte(byte + 1)
    local len = first >= 0xF0 and 4 or first >= 0xE0 and 3 or first >= 0xC0 and 2 or 1
    count = count + ((encoding == 'utf-16' and len == 4) and 2 or 1)
    byte = math.min(byte + len, #line)
  end
  return byte
end

--- The LSP character offset of byte column `byte` on `line` (the inverse of `byte_col` at
--- character boundaries); a column past the end counts the whole line.
--- @param line string
--- @param byte integer
--- @param encoding 'utf-8'|'utf-16'|'utf-32'
--- @return integer
function M.units(line, byte, encoding)
  byte = math.min(byte, #line)
  if encoding == 'utf-8' then
    return byte
  end
  local count, at = 0, 0
  while at < byte do
    local first = line:byte(at + 1)
    local len = first >= 0xF0 and 4 or first >= 0xE0 and 3 or first >= 0xC0 and 2 or 1
    count = count + ((encoding == 'utf-16' and len == 4) and 2 or 1)
    at = at + len
  end
  return count
end

--- The ghost text an inline completion item yields at the cursor, or nil if it does not fit.
---
--- `item_range` (byte columns, cursor row only) is the span the item replaces; the text the user
--- already typed inside it must be a prefix of `insert_text`. The result is what is left to show
--- after the cursor, and `replace_end`, the byte column up to which accepting it replaces the line.
--- @param line string the cursor's line
--- @param col integer the cursor's byte column
--- @param insert_text string
--- @param item_range {start_col: integer, end_col: integer}|nil
--- @return {text: string, replace_end: integer}|nil
function M.ghost(line, col, insert_text, item_range)
  local start_col, end_col = col, col
  if item_range then
    start_col, end_col = item_range.start_col, math.max(item_range.end_col, col)
    if start_col > col then
      return nil
    end
  end
  local typed = line:sub(start_col + 1, col)
  if insert_text:sub(1, #typed) ~= typed then
    return nil
  end
  local text = insert_text:sub(#typed + 1)
  -- What the completion ends with may already follow the cursor: do not show it twice.
  local after = line:sub(end_col + 1)
  if end_col == col and after ~= '' and not text:find('\n', 1, true) and vim.endswith(text, after) then
    text = text:sub(1, #text - #after)
    end_col = #line
  end
  if text == '' then
    return nil
  end
  return { text = text, replace_end = end_col }
end

--- The next word of `text`: leading whitespace (newlines included), then a run of word
--- characters or a run of other non-blank characters.
--- @param text string
--- @return string
function M.next_word(text)
  local space = text:match('^%s*')
  local rest = text:sub(#space + 1)
  local word = rest:match('^[%w_]+') or rest:match('^[^%w_%s]+') or ''
  return space .. word
end

--- The rest of the current line of `text`; if `text` starts with a newline, that newline and
--- the whole next line.
--- @param text string
--- @return string
function M.next_line(text)
  if text:sub(1, 1) == '\n' then
    local next_nl = text:find('\n', 2, true)
    return next_nl and text:sub(1, next_nl - 1) or text
  end
  local nl = text:find('\n', 1, true)
  return nl and text:sub(1, nl - 1) or text
end

--- Where the cursor ends after inserting `text` at (row, col): 0-based row, byte column.
--- @return integer row, integer col
function M.end_position(row, col, text)
  local lines = M.lines(text)
  if #lines == 1 then
    return row, col + #lines[1]
  end
  return row + #lines - 1, #lines[#lines]
end

--- If `new_line` is `old_line` with `typed` inserted at `col` and the ghost starts with `typed`,
--- returns the ghost left after typing through it ('' when it is used up); otherwise nil.
--- @return string|nil
function M.type_through(old_line, col, ghost_text, new_line, new_col)
  if new_col <= col then
    return nil
  end
  local typed = new_line:sub(col + 1, new_col)
  if old_line:sub(1, col) .. typed .. old_line:sub(col + 1) ~= new_line then
    return nil
  end
  if ghost_text:sub(1, #typed) ~= typed then
    return nil
  end
  return ghost_text:sub(#typed + 1)
end

--- The text a snippet-valued `insertText` inserts, with tabstops and placeholders resolved to
--- their default text (`${1:x}` -> `x`, `$0` -> '') and `\$` escapes undone.
--- @param snippet string
--- @return string
function M.snippet_text(snippet)
  -- Escaped characters are set aside first, so that `\$1` stays a literal "$1".
  local protected = snippet:gsub('\\([$}\\])', function(c)
    return ('\0%03d'):format(c:byte())
  end)
  local out = protected:gsub('%${%d+:([^}]*)}', '%1'):gsub('%${%d+}', ''):gsub('%$%d+', '')
  out = out:gsub('%z(%d%d%d)', function(code)
    return string.char(tonumber(code))
  end)
  return out
end

--- Replaces tabs by spaces up to the next multiple of `tabstop`, counting from `start_col`
--- display cells (virtual text is drawn literally, so tabs must be expanded for display).
function M.expand_tabs(text, tabstop, start_col)
  local cell = start_col or 0
  return (text:gsub('()([^\t]*)\t', function(_, run)
    cell = cell + vim.fn.strdisplaywidth(run)
    local pad = tabstop - (cell % tabstop)
    cell = cell + pad
    return run .. string.rep(' ', pad)
  end))
end

return M

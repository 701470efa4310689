--- Drawing and erasing ghost text with extmarks in the `arbor_ghost` namespace.
---
--- The first line of a completion is inline virtual text at the cursor (it pushes the rest of the
--- line right, as the text would once accepted); further lines are `virt_lines` below the cursor
--- line. Invariant: a buffer has at most one ghost extmark; `show` replaces it, `clear` removes it.
local text = require('arbor.text')

local M = {}

M.ns = vim.api.nvim_create_namespace('arbor_ghost')

local function chunks(line, hl_group)
  return { { line, hl_group } }
end

--- @param buf integer
--- @param row integer 0-based
--- @param col integer byte column
--- @param ghost string the text to show after the cursor
--- @param hl_group string
--- @return integer extmark id
function M.show(buf, row, col, ghost, hl_group)
  M.clear(buf)
  local tabstop = vim.bo[buf].tabstop
  local lines = text.lines(ghost)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  local start_cell = vim.fn.strdisplaywidth(line:sub(1, col))
  local opts = { hl_mode = 'combine', priority = 200 }
  if lines[1] ~= '' then
    opts.virt_text = chunks(text.expand_tabs(lines[1], tabstop, start_cell), hl_group)
    opts.virt_text_pos = 'inline'
  end
  if #lines > 1 then
    local below = {}
    for i = 2, #lines do
      below[#below + 1] = chunks(text.expand_tabs(lines[i], tabstop, 0), hl_group)
    end
    opts.virt_lines = below
  end
  return vim.api.nvim_buf_set_extmark(buf, M.ns, row, col, opts)
end

function M.clear(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
end

--- The ghost extmarks of `buf` as plain data: {row, col, virt_text = string, virt_lines = string[]}.
--- (What a user sees; tests and `:ArborStatus` read it.)
function M.marks(buf)
  local result = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, M.ns, 0, -1, { details = true })) do
    local details = mark[4]
    local inline = {}
    for _, chunk in ipairs(details.virt_text or {}) do
      inline[#inline + 1] = chunk[1]
    end
    local below = {}
    for _, virt_line in ipairs(details.virt_lines or {}) do
      local parts = {}
      for _, chunk in ipairs(virt_line) do
        parts[#parts + 1] = chunk[1]
      end
      below[#below + 1] = table.concat(parts)
    end
    result[#result + 1] = { row = mark[2], col = mark[3], virt_text = table.concat(inline), virt_lines = below }
  end
  return result
end

return M

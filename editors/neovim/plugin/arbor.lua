-- User commands of arbor-ls. Nothing starts until `require('arbor').setup{...}` is called.
if vim.g.loaded_arbor then
  return
end
vim.g.loaded_arbor = true

vim.api.nvim_create_user_command('ArborStatus', function()
  require('arbor.view').status()
end, { desc = "arbor-ls: the server's state, backend, breaker and counters" })

vim.api.nvim_create_user_command('ArborContext', function()
  require('arbor.view').context()
end, { desc = "arbor-ls: show the last prompt's context" })

vim.api.nvim_create_user_command('ArborToggle', function()
  local on = require('arbor').toggle()
  vim.notify('arbor: completions ' .. (on and 'on' or 'off'))
end, { desc = 'arbor-ls: turn inline completions on or off' })

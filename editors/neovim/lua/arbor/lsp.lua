--- The arbor-ls client: started with `vim.lsp.start` per buffer (one client per workspace root),
--- plus the custom messages (`arbor/status` and `arbor/completionReady` in, `arbor/accepted` /
--- `arbor/rejected` out).
local M = {}

M.name = 'arbor'

--- Last `arbor/status` per client id: {state, backend, breaker, message}.
M.status = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

--- Sends a request with the method-call style of the running Neovim (0.10: `client.request`).
--- @return boolean ok, integer|nil request_id
function M.request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.cancel(client, id)
  if has_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

--- The arbor client attached to `bufnr`, or nil.
function M.client_for(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get({ bufnr = bufnr, name = M.name })[1]
end

function M.any_client()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get({ name = M.name })[1]
end

local function root_dir(bufnr, markers)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find(markers, { path = vim.fs.dirname(path), upward = true })[1]
  return found and vim.fs.dirname(found) or vim.fn.getcwd()
end

local function on_status(err, params, ctx)
  if err or type(params) ~= 'table' then
    return
  end
  M.status[ctx.client_id] = params
  vim.api.nvim_exec_autocmds('User', { pattern = 'ArborStatus', modeline = false, data = params })
end

local function is_count(value)
  return type(value) == 'number' and value >= 0 and math.floor(value) == value
end

--- True for `arbor/completionReady` params: {uri: string, version: integer, position: {line, character}}.
function M.is_ready_params(params)
  return type(params) == 'table'
    and type(params.uri) == 'string'
    and is_count(params.version)
    and type(params.position) == 'table'
    and is_count(params.position.line)
    and is_count(params.position.character)
end

--- Starts (or reuses) the server for `bufnr`. `on_attach(client, bufnr)` runs once per buffer;
--- `on_ready(client, params)` runs for each well-formed `arbor/completionReady` notification.
--- @param opts arbor.Options
function M.start(bufnr, opts, on_attach, on_ready)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  if vim.fn.executable(opts.cmd[1]) ~= 1 then
    vim.notify_once(
      ('arbor: %q is not executable; install arbor-ls or pass `cmd` to setup()'):format(opts.cmd[1]),
      vim.log.levels.ERROR
    )
    return nil
  end
  return vim.lsp.start({
    name = M.name,
    cmd = opts.cmd,
    root_dir = root_dir(bufnr, opts.root_markers),
    init_options = opts.settings,
    settings = opts.settings,
    handlers = {
      ['arbor/status'] = on_status,
      ['arbor/completionReady'] = function(err, params, ctx)
        local client = vim.lsp.get_client_by_id(ctx.client_id)
        if not err and client and on_ready and M.is_ready_params(params) then
          on_ready(client, params)
        end
      end,
    },
    on_attach = on_attach,
    on_exit = function(_, _, client_id)
      M.status[client_id] = nil
    end,
  }, { bufnr = bufnr })
end

--- Sends new settings to every running arbor client (`workspace/didChangeConfiguration`).
function M.push_settings(settings)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(get({ name = M.name })) do
    client.settings = settings
    M.notify(client, 'workspace/didChangeConfiguration', { settings = settings })
  end
end

return M

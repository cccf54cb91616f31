-- Headless Neovim (0.7+) as a second real LSP client, driven by test/neovim.test.ts:
--   nvim --headless --clean -u NONE -c "luafile test/nvim/lsp-check.lua"
-- with PL_NODE (the node binary), PL_SERVER (dist/server.js), PL_FILE (a copy of the seed example) and PL_OUT (where to
-- write what happened, as JSON). It starts the server with vim.lsp.start_client, attaches the buffer with
-- buf_attach_client, waits for the diagnostics, asks for a hover and the quick fixes of the warning, applies
-- the one that lowers tensor_parallel_degree and waits for the diagnostics of the edited buffer.
-- It records facts only; the test asserts on them. Every wait has a timeout (vim.wait polls, no sleeps).
local out = { steps = {} }
local function step(s) table.insert(out.steps, s) end
local function finish()
  local f = io.open(os.getenv("PL_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end

local ok, err = pcall(function()
  local server, file = os.getenv("PL_SERVER"), os.getenv("PL_FILE")
  out.nvim = vim.version()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local published = {}
  local default_publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  local id = vim.lsp.start_client({
    name = "precision-lens",
    cmd = { os.getenv("PL_NODE") or "node", server, "--stdio" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    handlers = {
      ["textDocument/publishDiagnostics"] = function(e, result, ctx, config)
        table.insert(published, result)
        return default_publish(e, result, ctx, config)
      end,
    },
  })
  out.client_id = id
  if not id then return end
  vim.lsp.buf_attach_client(buf, id)
  step("attached")

  local function last_for_buf(min_count)
    for i = #published, 1, -1 do
      local p = published[i]
      if i >= min_count and vim.uri_to_bufnr(p.uri) == buf then return p end
    end
  end
  if not vim.wait(15000, function() return last_for_buf(1) ~= nil end, 20) then step("no diagnostics") return end
  local first = last_for_buf(1)
  out.diagnostics = first.diagnostics
  out.nvim_diagnostics = vim.tbl_map(function(d) return { lnum = d.lnum, col = d.col, severity = d.severity, source = d.source } end, vim.diagnostic.get(buf))
  step("diagnostics")

  local client = vim.lsp.get_client_by_id(id)
  local warn = first.diagnostics[1]
  if not warn then return end
  local pos = { line = warn.range.start.line, character = 2 }
  local hover = client.request_sync("textDocument/hover", { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = pos }, 10000, buf)
  out.hover = hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL
  step("hover")

  local actions = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = warn.range,
    context = { diagnostics = { warn } },
  }, 10000, buf)
  local list = actions and actions.result or {}
  out.actions = vim.tbl_map(function(a) return a.title end, list)
  step("code actions")
  local chosen
  for _, a in ipairs(list) do
    if a.title:find("tensor_parallel_degree", 1, true) then chosen = a end
  end
  if not chosen then return end
  local count = #published
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding or "utf-16")
  out.applied = chosen.title
  out.after_line = vim.api.nvim_buf_get_lines(buf, warn.range.start.line, warn.range.start.line + 1, false)[1]
  step("applied")
  if not vim.wait(15000, function() return last_for_buf(count + 1) ~= nil end, 20) then step("no diagnostics after the fix") return end
  out.after_diagnostics = last_for_buf(count + 1).diagnostics
  step("diagnostics after the fix")
  client.stop()
end)
if not ok then out.error = tostring(err) end
finish()

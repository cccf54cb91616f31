-- Loaded after the docs/editors.md init.lua snippet (test/neovim.test.ts): opens each PL_FILES file, waits
-- for the precision-lens client to attach and for its diagnostics, and writes what it saw to PL_OUT.
local out = {}
local function clients(buf)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = buf }) end
  return vim.lsp.buf_get_clients(buf)
end
for file in string.gmatch(os.getenv("PL_FILES"), "[^;]+") do
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local seen = { file = file, filetype = vim.bo[buf].filetype, attached = false, codes = {} }
  seen.attached = vim.wait(20000, function()
    for _, c in pairs(clients(buf)) do if c.name == "precision-lens" then return true end end
    return false
  end, 50)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(seen.codes, tostring(code))
  end
  table.insert(out, seen)
end
local v = vim.version()
local f = io.open(os.getenv("PL_OUT"), "w")
f:write(vim.fn.json_encode({ nvim = { major = v.major, minor = v.minor }, files = out }))
f:close()
vim.cmd("qa!")

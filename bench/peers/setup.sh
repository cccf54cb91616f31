#!/usr/bin/env bash
# npm run bench:setup: the peers `npm run bench` compares against (issues #21, #36), pinned at the versions
# users install, outside the main manifest:
#   - from PyPI into bench/peers/.venv (native binaries): taplo 0.9.3 (CLI and `taplo lsp stdio`),
#     tombi 1.9.6 (`tombi lint`, `tombi lsp`), ruff 0.17.6 (`ruff check --no-cache`, `ruff server`);
#   - from npm (this folder's package-lock.json): pyright 1.1.414 (`pyright`, `pyright-langserver --stdio`)
#     and yaml-language-server 2.0.0.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
python3 -m venv .venv
.venv/bin/pip install --quiet --no-deps taplo==0.9.3 tombi==1.9.6 ruff==0.17.6
echo "bench peers installed: $(.venv/bin/taplo --version), $(.venv/bin/tombi --version), $(.venv/bin/ruff --version), pyright $(node -p 'require("pyright/package.json").version'), yaml-language-server $(node -p 'require("yaml-language-server/package.json").version')"

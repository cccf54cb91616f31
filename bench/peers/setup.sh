#!/usr/bin/env bash
# npm run bench:setup: the peers `npm run bench` compares against (issue #21), pinned, outside the main
# manifest: taplo CLI 0.7.0 (@taplo/cli), taplo-lsp 0.8.0 (@taplo/lsp, run over stdio by
# taplo-lsp-stdio.mjs), yaml-language-server 2.0.0 from this folder's package-lock.json, and tombi 1.2.1
# (the PyPI wheel, a native binary) into bench/peers/.venv.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
python3 -m venv .venv
.venv/bin/pip install --quiet --no-deps tombi==1.2.1
echo "bench peers installed: $(node node_modules/@taplo/cli/dist/cli.js --version 2>/dev/null | head -1) (@taplo/cli $(node -p 'require("@taplo/cli/package.json").version')), @taplo/lsp $(node -p 'require("@taplo/lsp/package.json").version'), yaml-language-server $(node -p 'require("yaml-language-server/package.json").version'), $(.venv/bin/tombi --version)"

#!/usr/bin/env node
// `precision-lens-language-server --stdio`: the Precision Lens language server for any LSP editor (Neovim,
// Helix, Zed, Emacs eglot, ...). The server is the self-contained bundle dist/server.js (no runtime
// dependencies); vscode-languageserver picks the transport from the arguments (--stdio, --node-ipc, --socket=N).
require("../dist/server.js");

#!/usr/bin/env node
// `precision-lens-language-server --stdio`: the Precision Lens language server for any LSP editor (Neovim,
// Helix, Zed, Emacs eglot, ...). The server is the self-contained bundle dist/server.js (no runtime
// dependencies); vscode-languageserver picks the transport from the arguments (--stdio, --node-ipc, --socket=N,
// --pipe=NAME). Without a transport it prints its usage (or its version) instead of starting.
"use strict";
const args = process.argv.slice(2);
const USAGE = `usage: precision-lens-language-server --stdio | --node-ipc | --socket=PORT | --pipe=NAME
       precision-lens-language-server --help | --version
The Precision Lens language server: start it from your editor's LSP client (it speaks LSP over the transport
given). For the command line, use precision-lens check / explain.
`;
const isTransport = (a) => a === "--stdio" || a === "--node-ipc" || /^--(socket|pipe|clientProcessId)=/.test(a);
if (args.includes("--version") || args.includes("-v")) {
  process.stdout.write(`${require("../package.json").version}\n`);
  process.exit(0);
} else if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
} else if (!args.some(isTransport)) {
  process.stderr.write(args.length ? `precision-lens-language-server: unknown argument ${args.join(" ")}\n${USAGE}` : USAGE);
  process.exit(2);
} else {
  require("../dist/server.js");
}

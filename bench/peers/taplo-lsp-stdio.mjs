#!/usr/bin/env node
// taplo-lsp 0.8.0 (the @taplo/lsp npm package, a WebAssembly build) over stdio, for `npm run bench`:
// @taplo/lsp exposes the server as send()/onMessage; this file frames LSP messages (Content-Length)
// between stdin/stdout and it. The npm @taplo/cli build has no `lsp` command ("the LSP is not part of
// this build"), so this is how an editor without the native binary runs taplo's server. No network:
// schema fetching is off (fetch rejects), every file read is local.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import taploLsp from "@taplo/lsp";

const { TaploLsp } = taploLsp;

const env = {
  cwd: () => process.cwd(),
  envVar: (name) => process.env[name],
  envVars: () => Object.entries(process.env).filter((e) => e[1] !== undefined),
  findConfigFile: () => undefined,
  glob: () => [],
  isAbsolute: (p) => path.isAbsolute(p),
  now: () => new Date(),
  readFile: async (f) => fs.readFileSync(f),
  writeFile: async (f, b) => fs.writeFileSync(f, b),
  stderr: process.stderr,
  stdErrAtty: () => false,
  stdin: process.stdin,
  stdout: process.stdout,
  // taplo asks for non-file URLs too (its default workspace root): those map to their path part.
  urlToFilePath: (u) => (u.startsWith("file:") ? fileURLToPath(u) : u.replace(/^[a-z]+:\/\/\/?/i, "/")),
  fetch: { fetch: () => Promise.reject(new Error("no network in the bench")), Headers: class {}, Request: class {}, Response: class {} },
};

const write = (msg) => {
  const body = Buffer.from(JSON.stringify(msg), "utf8");
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
};

const lsp = await TaploLsp.initialize(env, { onMessage: write });
let buf = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const sep = buf.indexOf("\r\n\r\n");
    if (sep < 0) return;
    const m = /Content-Length: *(\d+)/i.exec(buf.subarray(0, sep).toString("ascii"));
    if (!m) throw new Error("bad LSP header");
    const len = Number(m[1]);
    if (buf.length < sep + 4 + len) return;
    const msg = JSON.parse(buf.subarray(sep + 4, sep + 4 + len).toString("utf8"));
    buf = buf.subarray(sep + 4 + len);
    if (msg.method === "exit") process.exit(0);
    lsp.send(msg);
  }
});
process.stdin.on("end", () => process.exit(0));

// Bundles the three entry points with esbuild. The bundles are the contract other tools rely on:
//   dist/client.js  the extension's main (VS Code API is external)
//   dist/server.js  the language server (--stdio or --node-ipc)
//   dist/cli.js     the `precision-lens` command line (a loader; the CLI itself is dist/cli-main.js)
import { build } from "esbuild";
import { createRequire } from "node:module";

const watch = process.argv.includes("--watch");
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: false,
  minify: !process.argv.includes("--no-minify"),
  logLevel: "warning",
  legalComments: "none",
};

const entries = [
  { entryPoints: ["client/src/extension.ts"], outfile: "dist/client.js", external: ["vscode"] },
  // The language server, the same way: dist/server.js loads dist/server-main.js from the code cache.
  { entryPoints: ["server/src/server.ts"], outfile: "dist/server-main.js" },
  { entryPoints: ["server/src/serverLoader.ts"], outfile: "dist/server.js" },
  // The `precision-lens` command: a small loader (dist/cli.js) that runs the CLI bundle (dist/cli-main.js)
  // from a V8 code cache (server/src/host/codeCache.ts; issue #21).
  { entryPoints: ["server/src/cli.ts"], outfile: "dist/cli-main.js" },
  { entryPoints: ["server/src/cliLoader.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
];

/**
 * Parsers only some files need (YAML, Python) loaded on first use instead of at start (issue #21): an
 * import of one of these packages from our sources resolves to a stand-in whose named exports are getters
 * that require the real package (still inside the bundle) the first time one is read. esbuild reads
 * imports of a CommonJS module as property accesses at the use site, so the getters see every use.
 */
const LAZY = ["yaml", "@lezer/python", "@lezer/common"];
const require = createRequire(import.meta.url);
const lazyParsers = {
  name: "lazy-parsers",
  setup(b) {
    const filter = new RegExp(`^(${LAZY.map((n) => n.replace(/[/.]/g, "\\$&")).join("|")})$`);
    b.onResolve({ filter }, (args) => (args.namespace === "lazy" ? undefined : { path: args.path, namespace: "lazy" }));
    b.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => {
      const names = Object.keys(require(args.path)).filter((k) => k !== "default" && k !== "__esModule");
      const getters = names.map((k) => `Object.defineProperty(exports, ${JSON.stringify(k)}, { enumerable: true, get: () => load()[${JSON.stringify(k)}] });`);
      return {
        contents: `"use strict";\nlet m;\nconst load = () => (m ??= require(${JSON.stringify(args.path)}));\nObject.defineProperty(exports, "__esModule", { value: true });\n${getters.join("\n")}\n`,
        loader: "js",
        resolveDir: process.cwd(),
      };
    });
  },
};
common.plugins = [lazyParsers];

const started = Date.now();
// Tables the bundles would otherwise derive in every process (issue #21), derived here from the same
// sources and embedded as constants: schema/index.ts reads them through `define`, and derives them
// itself when run from the sources (tests), so both paths give the same answers.
const schema = await build({ entryPoints: ["server/src/core/frameworks/torchtitan/schema/index.ts"], bundle: true, platform: "node", format: "esm", write: false, logLevel: "warning" });
const { keyWindowTable } = await import(`data:text/javascript;base64,${Buffer.from(schema.outputFiles[0].text).toString("base64")}`);
common.define = { __PRECISION_LENS_KEY_WINDOWS__: JSON.stringify(keyWindowTable()) };
await Promise.all(entries.map((e) => build({ ...common, ...e })));
if (!watch) console.log(`built ${entries.map((e) => e.outfile).join(", ")} in ${Date.now() - started} ms`);

// Bundles the three entry points with esbuild. The bundles are the contract other tools rely on:
//   dist/client.js  the extension's main (VS Code API is external)
//   dist/server.js  the language server (--stdio or --node-ipc)
//   dist/cli.js     the `precision-lens` command line (a loader; the CLI itself is dist/cli-main.js)
import { build } from "esbuild";

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
  { entryPoints: ["server/src/server.ts"], outfile: "dist/server.js" },
  // The `precision-lens` command: a small loader (dist/cli.js) that runs the CLI bundle (dist/cli-main.js)
  // from a V8 code cache (server/src/host/codeCache.ts; issue #21).
  { entryPoints: ["server/src/cli.ts"], outfile: "dist/cli-main.js" },
  { entryPoints: ["server/src/cliLoader.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
];

const started = Date.now();
// Tables the bundles would otherwise derive in every process (issue #21), derived here from the same
// sources and embedded as constants: schema/index.ts reads them through `define`, and derives them
// itself when run from the sources (tests), so both paths give the same answers.
const schema = await build({ entryPoints: ["server/src/core/frameworks/torchtitan/schema/index.ts"], bundle: true, platform: "node", format: "esm", write: false, logLevel: "warning" });
const { keyWindowTable } = await import(`data:text/javascript;base64,${Buffer.from(schema.outputFiles[0].text).toString("base64")}`);
common.define = { __PRECISION_LENS_KEY_WINDOWS__: JSON.stringify(keyWindowTable()) };
await Promise.all(entries.map((e) => build({ ...common, ...e })));
if (!watch) console.log(`built ${entries.map((e) => e.outfile).join(", ")} in ${Date.now() - started} ms`);

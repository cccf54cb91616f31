// Bundles the three entry points with esbuild. The bundles are the contract other tools rely on:
//   dist/client.js  the extension's main (VS Code API is external)
//   dist/server.js  the language server (--stdio or --node-ipc)
//   dist/cli.js     the `precision-lens` command line
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
  { entryPoints: ["server/src/cli.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } },
];

const started = Date.now();
await Promise.all(entries.map((e) => build({ ...common, ...e })));
if (!watch) console.log(`built ${entries.map((e) => e.outfile).join(", ")} in ${Date.now() - started} ms`);

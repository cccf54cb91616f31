/** `precision-lens` (dist/cli.js): runs the CLI bundle dist/cli-main.js (cli.ts) from a V8 code cache (host/codeCache.ts). */
import { join } from "node:path";
import { runBundle } from "./host/codeCache";

const args = process.argv.slice(2);
// --version / --help compile only the top level: such a run leaves the writing to one that analyses.
const trivial = args.length === 0 || args.some((a) => a === "--version" || a === "-v" || a === "--help" || a === "-h");
runBundle(join(__dirname, "cli-main.js"), { name: "cli", worthWriting: !trivial });

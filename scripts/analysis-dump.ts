/**
 * Dumps everything the analysis returns for each YAML/JSON/TOML file under the given folders (diagnostics
 * with fixes, hovers, inlay hints, report Markdown, precision, layout), one JSON line per file, for
 * behaviour-preserving refactors: run it before and after and compare (scripts/corpus-diff.sh does).
 * Usage: node --import tsx scripts/analysis-dump.ts DIR...
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";

function walk(p: string, out: string[]): void {
  const st = statSync(p);
  if (st.isDirectory()) for (const n of readdirSync(p).sort()) walk(join(p, n), out);
  else if (st.isFile() && /\.(toml|ya?ml|json)$/.test(p)) out.push(p);
}

const files: { f: string; tree: string }[] = [];
for (const d of process.argv.slice(2)) {
  const found: string[] = [];
  walk(d, found);
  // The folder named is a workspace root, as for `check DIR` (cli/checkFile.ts).
  for (const f of found) files.push({ f, tree: resolve(d) });
}
for (const { f, tree } of files) {
  const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [process.cwd(), tree, dirname(resolve(f))]), formatOf(f));
  const { doc: _doc, ...rest } = r as typeof r & { doc?: unknown };
  process.stdout.write(JSON.stringify({ file: f, ...rest }) + "\n");
}

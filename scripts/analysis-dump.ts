/**
 * Dumps everything the analysis returns for each YAML/JSON/TOML file under the given folders (diagnostics
 * with fixes, hovers, inlay hints, report Markdown, precision, layout), one JSON line per file, for
 * behaviour-preserving refactors: run it before and after and compare (scripts/corpus-diff.sh does).
 * Usage: node --import tsx scripts/analysis-dump.ts DIR...
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../server/src/core/analyze";
import { nodeEnv } from "../server/src/host/nodeEnv";

function walk(p: string, out: string[]): void {
  const st = statSync(p);
  if (st.isDirectory()) for (const n of readdirSync(p).sort()) walk(join(p, n), out);
  else if (st.isFile() && /\.(toml|ya?ml|json)$/.test(p)) out.push(p);
}

const files: string[] = [];
for (const d of process.argv.slice(2)) walk(d, files);
for (const f of files) {
  const r = analyzeDocument(pathToFileURL(f).href, readFileSync(f, "utf8"), {}, nodeEnv(f, [process.cwd()]), formatOf(f));
  const { doc: _doc, ...rest } = r as typeof r & { doc?: unknown };
  process.stdout.write(JSON.stringify({ file: f, ...rest }) + "\n");
}

/**
 * Runs one attack of test/support/attacks.ts through the analysis, in its own process (the caller sets the
 * time and heap limits): `node --import tsx test/support/attackChild.ts INDEX SIZE`. Prints one JSON line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../../server/src/core/analyze";
import { nodeEnv } from "../../server/src/host/nodeEnv";
import { ATTACKS } from "./attacks";

const attack = ATTACKS[Number(process.argv[2])]!;
const size = Number(process.argv[3]);
const { text, neighbours } = attack.make(size);
const dir = mkdtempSync(join(tmpdir(), "pl-attack-"));
try {
  for (const [name, body] of Object.entries(neighbours ?? {})) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  const path = join(dir, attack.file);
  writeFileSync(path, text);
  const t0 = performance.now();
  const r = analyzeDocument(pathToFileURL(path).href, text, {}, nodeEnv(path, [dir]));
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, chars: text.length + Object.values(neighbours ?? {}).reduce((a, b) => a + b.length, 0), codes: r.diagnostics.map((d) => d.code) }) + "\n");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs one attack of test/support/attacks.ts through the analysis, in its own process (the caller sets the
 * time and heap limits): `node --import tsx test/support/attackChild.ts INDEX SIZE`. Prints one JSON line.
 */
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../../server/src/core/analyze";
import { nodeEnv } from "../../server/src/host/nodeEnv";
import { ATTACKS, withAttackOnDisk } from "./attacks";

const attack = ATTACKS[Number(process.argv[2])]!;
withAttackOnDisk(attack, Number(process.argv[3]), ({ path, dir, text, chars }) => {
  const t0 = performance.now();
  const r = analyzeDocument(pathToFileURL(path).href, text, {}, nodeEnv(path, [dir]));
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, chars, codes: r.diagnostics.map((d) => d.code) }) + "\n");
});

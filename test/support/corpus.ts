/** Locating ../shared/corpus (read-only third-party configs). Tests skip with a message when absent. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const CORPUS = resolve(__dirname, "../../../shared/corpus");

export function corpusAvailable(sub = ""): boolean {
  return existsSync(join(CORPUS, sub));
}

export const CORPUS_SKIP = `../shared/corpus is absent (expected at ${CORPUS}); corpus tests skipped`;

export function listFiles(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (exts.some((e) => n.endsWith(e))) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Locating ../shared/corpus (read-only third-party configs). Tests skip with a message when absent. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const CORPUS = resolve(__dirname, "../../../shared/corpus");

export function corpusAvailable(sub = ""): boolean {
  return existsSync(join(CORPUS, sub));
}

/** What a corpus test says when it skips: what is missing and what to put there (one text, so the summary
 * that ends `npm test` lists every corpus suite under one reason). */
export const CORPUS_SKIP = `../shared/corpus is absent (expected at ${CORPUS}): to run the corpus suites, put a folder of third-party training configs there (docs/development.md, "What the tests need")`;

/** `skip` for a test over ../shared/corpus/<sub>: false when it is there, else why not. */
export function corpusSkip(sub = ""): string | false {
  if (corpusAvailable(sub)) return false;
  return sub && corpusAvailable() ? `../shared/corpus/${sub} is absent (the corpus at ${CORPUS} has no such folder); that part of the corpus suites is skipped` : CORPUS_SKIP;
}

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

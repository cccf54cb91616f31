/**
 * `precision-lens check --fix`: applies every fix that is safe without a choice, re-analysing after
 * each one (a fix can create a table another fix then reuses, or make other diagnostics go away), and
 * lists the fixes that need a choice.
 *
 * Safe-fix convention: a diagnostic whose `data.facts.safeFix === true` has exactly one fix, and that fix
 * is applied. Rules set it with `markSafe(d)` (torchtitan/schema/view.ts): moved and renamed keys, a
 * typo with one clear suggestion, a stale converter name, a removed key whose value was off.
 */
import type { AnalysisEnv, AnalysisSettings } from "../analysis";
import { NO_ENV } from "../analysis";
import { analyzeDocument } from "../analyze";
import { applyEdits } from "../diagnostics/build";
import { LineIndex } from "../model/lineIndex";
import { safeFixOf, SAFE_FIX_FACT } from "../frameworks/torchtitan/schema/view";
import type { Diagnostic } from "../model/types";

export { SAFE_FIX_FACT };

export interface AppliedFix {
  code: string;
  title: string;
  /** One-based line of the diagnostic in the text as it was when the fix was applied. */
  line: number;
}

export interface ChoiceNeeded {
  code: string;
  message: string;
  /** One-based line in the fixed text. */
  line: number;
  /** Titles of the fixes offered. */
  fixes: string[];
}

export interface FixAllResult {
  text: string;
  applied: AppliedFix[];
  needsChoice: ChoiceNeeded[];
  /** True when the text changed. */
  changed: boolean;
}

export const MAX_FIX_ROUNDS = 200;

export function isSafeFix(d: Diagnostic): boolean {
  return safeFixOf(d) !== undefined;
}

export function fixAll(uri: string, text: string, settings: AnalysisSettings = {}, env: AnalysisEnv = NO_ENV): FixAllResult {
  let cur = text;
  const applied: AppliedFix[] = [];
  const failed = new Set<string>();
  for (let round = 0; round < MAX_FIX_ROUNDS; round++) {
    const r = analyzeDocument(uri, cur, settings, env);
    if (r.doc.syntaxErrors.length) break;
    const candidates = r.diagnostics.filter((d) => isSafeFix(d) && !failed.has(keyOf(d)));
    if (!candidates.length) break;
    const d = candidates[0]!;
    const f = safeFixOf(d)!;
    let next: string;
    try {
      next = applyEdits({ text: cur, lines: new LineIndex(cur) }, f.edits);
    } catch {
      failed.add(keyOf(d));
      continue;
    }
    // A fix must leave a file that parses and must change something.
    if (next === cur || analyzeDocument(uri, next, settings, env).doc.syntaxErrors.length) {
      failed.add(keyOf(d));
      continue;
    }
    applied.push({ code: d.code, title: f.title, line: d.range.start.line + 1 });
    cur = next;
  }
  const final = analyzeDocument(uri, cur, settings, env);
  const needsChoice: ChoiceNeeded[] = final.diagnostics
    .filter((d) => (d.data?.fixes?.length ?? 0) > 0 && !isSafeFix(d))
    .map((d) => ({ code: d.code, message: d.message, line: d.range.start.line + 1, fixes: d.data!.fixes!.map((f) => f.title) }));
  return { text: cur, applied, needsChoice, changed: cur !== text };
}

function keyOf(d: Diagnostic): string {
  return `${d.code}\u0000${d.message}`;
}

/** A short report of what `fixAll` did, for the CLI (one line per change). */
export function formatFixReport(path: string, r: FixAllResult): string[] {
  const out: string[] = [];
  for (const a of r.applied) out.push(`${path}:${a.line}: fixed [${a.code}] ${a.title}`);
  for (const n of r.needsChoice) out.push(`${path}:${n.line}: needs a choice [${n.code}] ${n.message} (fixes: ${n.fixes.join(" | ")})`);
  return out;
}

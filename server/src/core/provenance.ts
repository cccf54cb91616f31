/**
 * Provenance and severity (issue #17): every fact a framework's context uses records where it came from
 * (`Sourced.kind`), every rule declares which facts it rests on (`RestsOn.restsOn`), and the severity follows
 * from them here, in one place, not in each rule:
 *  - an error ("the launch fails") stands only when every fact it rests on is known;
 *  - on a default or an inference it becomes a warning (or, where the rule's doc page says so, information)
 *    whose message names the assumption ("Assuming 8 GPUs, run_train.sh's default: …").
 * Reference: docs/provenance.md. Applied by `gateDiagnostics`, called from the two rule runners
 * (`frameworks/common/rule.ts` runRules and the torchtitan analyser).
 */
import { MAX_MESSAGE } from "./diagnostics/build";
import type { Diagnostic, Severity } from "./model/types";
import { table } from "./model/table";

/**
 * Where a fact came from.
 *  - known: `file` (a key of this file, or of a file it links), `directive` (`# precision-lens: k=v`), `setting`
 *    (the editor setting), `cli` (a command-line flag), `run-script` / `slurm` (a launch script that names this
 *    file), `workspace-pin` (a requirements / pyproject pin), `workspace-code` (the workspace's own torchtitan
 *    package, matched to a known upstream state: workspace/forkCode.ts);
 *  - evidence: `comment` (a statement in the file's own comments, with its line): it decides a value, but an
 *    error resting on it is gated like an assumption;
 *  - assumed: `inferred` (from other keys: the version from the keys a file uses, the world size from degrees),
 *    `default` (nothing said it: the framework's or Precision Lens's default).
 */
export type FactKind = "file" | "directive" | "setting" | "cli" | "run-script" | "slurm" | "comment" | "workspace-pin" | "workspace-code" | "inferred" | "default";

export const FACT_KINDS: readonly FactKind[] = ["file", "directive", "setting", "cli", "run-script", "slurm", "comment", "workspace-pin", "workspace-code", "inferred", "default"];

/** The facts a framework context may rest a finding on. */
export type FactName = "worldSize" | "version" | "gpu" | "model" | "forkSchema" | "linkedConfig" | "launcher" | "evaluation";

/** The part of `Sourced<T>` (core/analysis.ts) the gate reads. */
export interface FactValue {
  value: unknown;
  kind: FactKind;
  detail: string;
}

/** The facts of one analysis: absent means unknown (treated like a default). */
export type Facts = Partial<Record<FactName, FactValue | undefined>>;

/** What a rule declares (FrameworkRule and TitanRule extend it). */
export interface RestsOn {
  /** The facts the rule's verdicts depend on; [] when it reads the file alone. */
  restsOn: readonly FactName[];
  /** The severity of one of its errors when a fact it rests on is assumed (default "warning"). */
  onAssumed?: "warning" | "information";
  /**
   * A warning resting on an assumed fact becomes information, led by the assumption (for rules whose warning
   * says "the run silently does something else" only when the launcher or the version is known).
   */
  warningOnAssumed?: "information";
}

/**
 * Known kinds carry an error. A comment is evidence, not a fact: it decides a value (the world size a preset
 * states) but a finding resting on it is at most a warning, since comments go stale (a fork keeps the header of
 * the upstream preset it copied).
 */
export function isKnown(kind: FactKind): boolean {
  return kind !== "inferred" && kind !== "default" && kind !== "comment";
}

const NOUN: Readonly<Record<FactName, (v: unknown) => string>> = table({
  worldSize: (v) => `${v} GPU${v === 1 ? "" : "s"}`,
  // torchtitan's version is a TitanVersion ({ id }); other frameworks name theirs ("torchtune 0.7.0").
  version: (v) => (typeof v === "object" && v && "id" in v ? `torchtitan ${String((v as { id: unknown }).id)}` : String(v)),
  gpu: (v) => String(v),
  model: (v) => `model "${String(v)}"`,
  forkSchema: () => "the upstream schema",
  linkedConfig: (v) => `the linked config ${String(v)}`,
  launcher: (v) => `the ${String(v)} launcher`,
  // A torchtitan config function as the static evaluator read it (frameworks/torchtitan/python/titanContext.ts).
  evaluation: (v) => `${String(v)}() as read`,
});

/** What an inferred fact was inferred from, where every inference of it has one source (the version: the keys). */
const INFERRED_FROM: Partial<Record<FactName, string>> = table({ version: "inferred from the keys" });

/**
 * "8 GPUs, run_train.sh default (NGPU=8)": the assumption, named for a message. `compact`: the noun and its
 * kind only ("torchtitan main@2025-08-29 (inferred)"), for a message the full lead leaves no room in.
 */
export function assumption(name: FactName, fact: FactValue | undefined, compact = false): string {
  if (!fact) return `an unknown ${name === "worldSize" ? "world size" : name}`;
  const noun = NOUN[name](fact.value);
  const why = fact.kind === "inferred" ? `inferred: ${fact.detail}` : fact.detail;
  const kind = fact.kind === "default" ? "the default" : fact.kind === "comment" ? "as a comment states" : compact ? "inferred" : (INFERRED_FROM[name] ?? "inferred");
  return !compact && why.length <= 60 ? `${noun}, ${why}` : `${noun} (${kind})`;
}

/** The facts among `names` that are assumed (default, inferred or absent). */
export function assumedFacts(names: readonly FactName[], facts: Facts): FactName[] {
  return names.filter((n) => {
    const f = facts[n];
    return !f || !isKnown(f.kind);
  });
}

const perDiagnostic = new WeakMap<Diagnostic, readonly FactName[]>();

/** Overrides the rule's `restsOn` for one diagnostic (a rule whose verdicts rest on different facts). */
export function restingOn(d: Diagnostic, names: readonly FactName[]): Diagnostic {
  perDiagnostic.set(d, names);
  return d;
}

/** The facts one diagnostic rests on: its own (`restingOn`), else its rule's. */
export function restsOnOf(d: Diagnostic, rule: RestsOn): readonly FactName[] {
  return perDiagnostic.get(d) ?? rule.restsOn;
}

const shorterBodies = new WeakMap<Diagnostic, readonly string[]>();

/**
 * Shorter wordings of a diagnostic's message, shortest last, that the gate may use when the assumption it
 * leads with leaves too little room for the message as written.
 */
export function withShorter(d: Diagnostic, bodies: readonly string[]): Diagnostic {
  shorterBodies.set(d, bodies);
  return d;
}

/**
 * The severity rule, applied to what one rule returned: an error resting on an assumed fact becomes the rule's
 * `onAssumed` severity, its message and detail led by the assumption; so does a warning, to information, when the
 * rule says `warningOnAssumed`. Other diagnostics pass unchanged.
 */
export function gateDiagnostics(out: Diagnostic[], rule: RestsOn, facts: Facts): Diagnostic[] {
  for (const d of out) {
    if (d.severity !== "error" && !(d.severity === "warning" && rule.warningOnAssumed)) continue;
    const assumed = assumedFacts(perDiagnostic.get(d) ?? rule.restsOn, facts);
    if (!assumed.length) continue;
    const lead = `Assuming ${assumed.map((n) => assumption(n, facts[n])).join(" and ")}`;
    const compactLead = `Assuming ${assumed.map((n) => assumption(n, facts[n], true)).join(" and ")}`;
    const severity: Severity = d.severity === "warning" ? rule.warningOnAssumed! : (rule.onAssumed ?? "warning");
    d.severity = severity;
    // "The degrees …" → "the degrees …"; "DDP …", "TP-only …" keep their capitals.
    const body = lowerFirst(d.message);
    const full = `${lead}: ${body}`;
    if (!d.detail) d.detail = full.endsWith(".") ? full : `${full}.`;
    else d.detail = `${lead}: ${d.detail}`;
    d.message = full.length <= MAX_MESSAGE ? full : fitted([lead, compactLead], [body, ...(shorterBodies.get(d) ?? []).map(lowerFirst)]) ?? fitShort(compactLead, body);
    d.data = { ...d.data, facts: { ...d.data?.facts, assumed: assumed.join(",") } };
  }
  return out;
}

function lowerFirst(m: string): string {
  return /^[A-Z][a-z]/.test(m) ? m.charAt(0).toLowerCase() + m.slice(1) : m;
}

/** The first lead + body that fits, leads first (the full lead with a shorter body before a compact lead). */
function fitted(leads: readonly string[], bodies: readonly string[]): string | undefined {
  for (const lead of leads) for (const body of bodies) if (lead.length + 2 + body.length <= MAX_MESSAGE) return `${lead}: ${body}`;
  return undefined;
}

/**
 * The compact lead with the whole message (issue #34: never cut mid-word, "…KeyErro…"); longer than
 * MAX_MESSAGE only when no shorter wording was given (`withShorter`).
 */
function fitShort(lead: string, body: string): string {
  return `${lead}: ${body}`;
}

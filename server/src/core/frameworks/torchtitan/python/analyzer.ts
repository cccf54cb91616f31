/**
 * The torchtitan Python-config analyser (torchtitan ≥ 2026-02-23: `config_registry.py` and forks' modules):
 * detection by content, per config function evaluation (evaluate.ts), resolution through the TOML rooms
 * (context.ts), rules (rules.ts), and per-function hovers, code lenses, inlay hints and report.
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, HoverTarget, InlayHintData } from "../../../analysis";
import { parseDirectives } from "../../../diagnostics/directives";
import { shortDtype } from "../../../model/dtypeNames";
import type { ConfigDocument } from "../../../model/document";
import { pyModuleOf, type PyModule } from "../../../parse/python";
import type { Directive } from "../../../diagnostics/directives";
import type { Diagnostic, Range } from "../../../model/types";
import { ALWAYS_FSDP_DATE, launchOf, parsePyVersion, resolveConfig, resolvePyVersion, type PyResolution, type PyContext } from "./context";
import { configFunctions, evaluateConfig, functionSignature, MAX_ANALYSIS_STEPS, ModuleSet, type FieldValue, type ReadSet } from "./evaluate";
import { cachedFunctions, documentKey, forgetFunctions, keepFunctions, pyFunctionCache, stillValid, withDocument, withoutDocument, type CachedFunction } from "./functionCache";
import { pyTitanContext, pyTitanDiagnostics } from "./titanContext";
import { choicesAt } from "./schema";
import { table } from "../../../model/table";
import { lensMemory, simulate, renderSimulationMarkdown } from "../../../engine";
import type { Simulation } from "../../../engine/types";
import { defineLazy } from "../../../model/lazy";
import { throughputAlternatives } from "../throughput";
import { codeSpan, mdProse } from "../../../model/markdown";

export function detectTorchtitanPython(doc: ConfigDocument): string | undefined {
  const m = pyModuleOf(doc);
  if (!m) return undefined;
  if (!m.imports.some((i) => i.module === "torchtitan" || i.module.startsWith("torchtitan."))) return undefined;
  const fns = configFunctions(m);
  if (!fns.length) return undefined;
  return `imports torchtitan and defines ${fns.length} config function${fns.length === 1 ? "" : "s"} returning Trainer.Config`;
}

export const torchtitanPythonAnalyzer: FrameworkAnalyzer = {
  id: "torchtitan",
  formats: ["python"],
  detect: detectTorchtitanPython,
  analyze: analyzeTorchtitanPython,
};

export interface PyFunctionResult {
  name: string;
  range: Range;
  nameRange: Range;
  r: PyResolution;
  headline: string;
  markdown: string;
  /** This function's own diagnostics (before findings shared with other functions are merged). */
  diagnostics: Diagnostic[];
}

/**
 * Every config function of the document, resolved (the CLI's `FILE.py::function` picks one). A function whose
 * inputs did not change since the document's last analysis reuses its result (functionCache.ts, issue #36).
 */
export function analyzePyFunctions(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): { ctx: PyContext; results: PyFunctionResult[]; diagnostics: Diagnostic[] } {
  const module = pyModuleOf(doc)!;
  const directives = parseDirectives(doc.comments);
  const ctx = resolvePyVersion(doc, settings, env, directives);
  const key = pyFunctionCache.enabled ? documentKey(doc, module, settings, env, directives, ctx) : "";
  const run = (cached: ReadonlyMap<string, CachedFunction> | undefined): ReturnType<typeof analyzeFunctions> => analyzeFunctions(doc, module, settings, env, directives, ctx, cached);
  let out = run(cachedFunctions(doc.uri, key));
  // Reused results stand for work this analysis did not do: when it could have passed the analysis's evaluation
  // budget, a fresh analysis would differ (some evaluation cut short), so it runs fresh.
  if (out.reused > 0 && out.shared.steps + out.reusedCost > MAX_ANALYSIS_STEPS) out = run(undefined);
  if (!pyFunctionCache.enabled) return out;
  if (out.shared.steps > MAX_ANALYSIS_STEPS || env.readsRefused?.()) forgetFunctions(doc.uri);
  else keepFunctions(doc.uri, key, out.kept);
  return out;
}

function analyzeFunctions(doc: ConfigDocument, module: PyModule, settings: AnalysisSettings, env: AnalysisEnv, directives: Directive[], ctx: PyContext, cached: ReadonlyMap<string, CachedFunction> | undefined) {
  const root = { module, file: doc.uri, ...(env.documentPath ? { path: env.documentPath } : {}), isRoot: true };
  const results: PyFunctionResult[] = [];
  const found: { d: Diagnostic; fn: string }[] = [];
  // The workspace modules and module-level values, read and evaluated once for all functions (issue #33, #36).
  const shared = new ModuleSet(env);
  const kept = new Map<string, CachedFunction>();
  let reused = 0;
  let reusedCost = 0;
  for (const fn of configFunctions(module)) {
    if (settings.configFunction && fn.name !== settings.configFunction) continue;
    const launch = launchOf(fn.name, env);
    const sig = pyFunctionCache.enabled ? functionSignature(module, fn) : "";
    const launchKey = pyFunctionCache.enabled ? JSON.stringify(launch) : "";
    const hit = cached?.get(sig);
    let r: PyResolution;
    let h: string;
    let diagnostics: Diagnostic[];
    if (hit && stillValid(hit, module, shared, env, launchKey)) {
      pyFunctionCache.hits++;
      reused++;
      reusedCost += hit.reads.cost;
      r = withDocument(hit.r, doc);
      h = hit.headline;
      // The same objects as the analysis before: nothing after this point writes into a diagnostic (mergeShared
      // makes a new one for a merged finding), so no copy is needed (issue #36).
      diagnostics = hit.diagnostics;
      kept.set(sig, hit);
    } else {
      if (pyFunctionCache.enabled) pyFunctionCache.misses++;
      const reads: ReadSet = { names: new Map(), modules: new Map(), cost: 0 };
      const ev = evaluateConfig(fn, root, env, shared, reads);
      r = resolveConfig(ev, doc, ctx.version.value, settings, env, directives, launch);
      h = headlineOf(r);
      // The same rule list as a TOML file's, over the same format-neutral context (titanContext.ts).
      const sim = r.simulationInput ? simulate(r.simulationInput) : undefined;
      const tctx = pyTitanContext(r, ctx.version, settings, env, directives, sim);
      // In reading order, as the file's list is published.
      diagnostics = pyTitanDiagnostics(tctx, r).sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
      if (pyFunctionCache.enabled) kept.set(sig, { reads, launch: launchKey, r: withoutDocument(r), headline: h, diagnostics });
    }
    // The function's Markdown (hover, report) is built when first read, never on the diagnostics path (issue #36).
    const res: PyFunctionResult = { name: fn.name, range: fn.range, nameRange: fn.nameRange, r, headline: h, markdown: "", diagnostics };
    const resolved = r;
    const headline = h;
    results.push(defineLazy(res, "markdown", () => functionMarkdown(resolved, ctx, headline)));
    for (const d of diagnostics) found.push({ d, fn: fn.name });
  }
  return { ctx, results, diagnostics: mergeShared(found), shared, kept, reused, reusedCost };
}

/**
 * Config functions that share a helper (seven `qwen3_*()` calling one `_trainer()`) get the same finding at the
 * same place: one diagnostic, whose detail names the functions, instead of one per function.
 */
function mergeShared(found: readonly { d: Diagnostic; fn: string }[]): Diagnostic[] {
  const groups = new Map<string, { d: Diagnostic; fns: Set<string> }>();
  for (const { d, fn } of found) {
    const k = mergeKey(d);
    const g = groups.get(k);
    if (g) {
      g.fns.add(fn);
      // The fix of one function (its own call-site literal) rather than none (issue #33).
      if (!g.d.data?.fixes?.length && d.data?.fixes?.length) g.d = d;
    } else groups.set(k, { d, fns: new Set([fn]) });
  }
  return [...groups.values()].map(({ d, fns }) => {
    const names = [...fns];
    // A new object: the function's own diagnostic is kept for the next analysis as it is (functionCache.ts).
    return names.length > 1 ? { ...d, detail: `${d.detail ?? d.message} (the same in ${names.length} config functions: ${names.slice(0, 8).join(", ")}${names.length > 8 ? ", …" : ""})` } : d;
  });
}

/** What makes two functions' findings one (computed once per diagnostic object: a reused one is not re-keyed). */
function mergeKey(d: Diagnostic): string {
  let k = MERGE_KEYS.get(d);
  if (k === undefined) MERGE_KEYS.set(d, (k = JSON.stringify([d.code, d.severity, d.range, d.message])));
  return k;
}

const MERGE_KEYS = new WeakMap<Diagnostic, string>();

function analyzeTorchtitanPython(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const { ctx, results, diagnostics } = analyzePyFunctions(doc, settings, env);
  const first = results[0];
  // hovers, inlayHints and reportMarkdown are computed when first read (docs/ARCHITECTURE.md "Lazy features"):
  // the placeholders keep the keys' order, which the byte-identical JSON dump depends on.
  const out: FrameworkAnalysis = {
    diagnostics,
    hovers: [],
    inlayHints: [],
    torchtitanVersion: { value: ctx.version.value.id, source: ctx.version.source, kind: ctx.version.kind, detail: ctx.version.detail },
    codeLenses: [],
    configFunctions: results.map((f) => ({
      name: f.name,
      range: f.range,
      selectionRange: f.nameRange,
      detail: f.headline,
      worldSize: f.r.worldSize,
      layoutName: f.r.layoutName,
      mechanism: f.r.decision.mechanism,
      parallel: f.r.dims.resolved ?? f.r.dims.configured,
      ...(f.r.precision ? { precision: f.r.precision } : {}),
      ...(f.r.launch ? { launch: f.r.launch } : {}),
      diagnostics: f.diagnostics,
    })),
  };
  // Lazy (core/model/lazy.ts): each function's step is simulated for its memory figure only when the lenses are asked for.
  defineLazy(out, "codeLenses", () =>
    results.map((f) => ({
      range: { start: f.r.evaluated.fn.headerRange.start, end: f.r.evaluated.fn.headerRange.start },
      title: `Precision Lens: ${f.name}: ${f.headline}${lensMemory(f.r.simulationInput ? simulate(f.r.simulationInput) : undefined)}`,
      configFunction: f.name,
    })),
  );
  defineLazy(out, "hovers", () => pyHovers(doc, results, ctx));
  defineLazy(out, "inlayHints", () => pyInlayHints(doc, results));
  if (first) {
    out.worldSize = first.r.worldSize;
    out.layoutName = first.r.layoutName;
    out.mechanism = first.r.decision.mechanism;
    out.parallel = first.r.dims.resolved ?? first.r.dims.configured;
    if (first.r.precision) out.precision = first.r.precision;
    // The step is simulated for one function: the one asked for (FILE.py::fn, the code lens's report), else the first.
    const sim = simulateFunction(first.r);
    if (sim) out.simulation = sim;
    out.reportMarkdown = "";
    defineLazy(out, "reportMarkdown", () => (results.length === 1 ? functionReport(first, sim) : [...results.map((f) => f.markdown), `_The per-op simulation and the what-if matrix are per function: open a function's report from its code lens, or run \`precision-lens explain FILE.py::${first.name}\`. The charts of this report are \`${first.name}()\`'s._`].join("\n\n---\n\n")));
  }
  return out;
}

/** Each function's field hovers and the hover on its name (its Markdown). */
function pyHovers(doc: ConfigDocument, results: readonly PyFunctionResult[], ctx: PyContext): HoverTarget[] {
  const hovers: HoverTarget[] = [];
  for (const f of results) {
    hovers.push(...fieldHovers(doc, f, ctx));
    hovers.push({ range: f.nameRange, markdown: f.markdown });
  }
  return hovers;
}

/** The headline after each function's header, and what a `-1` data-parallel shard degree became. */
function pyInlayHints(doc: ConfigDocument, results: readonly PyFunctionResult[]): InlayHintData[] {
  const inlayHints: InlayHintData[] = [];
  for (const f of results) {
    // No inlay hint on the `def` line: the code lens above it says the same (issue #34), with the memory figure.
    const dps = f.r.fields.get("parallelism.data_parallel_shard_degree");
    if (dps?.state === "set" && dps.value === -1 && dps.origin?.file === doc.uri && f.r.dims.resolved) inlayHints.push({ position: dps.origin.range.end, label: ` = ${f.r.dims.resolved.dp_shard}`, tooltip: `-1 takes the remaining GPUs: ${f.r.worldSize.value} GPUs (${f.r.worldSize.detail})` });
  }
  return inlayHints;
}

/** One config function resolved again under a forced world size and version (the what-if matrix's cells). */
export interface PyScenario {
  name: string;
  resolve(worldSize: number, version: string): { r: PyResolution; simulation?: Simulation } | undefined;
}

/**
 * The what-if matrix's source for a registry: the function (`fnName`, else the first) evaluated once, its run
 * scripts read once; each cell re-resolves it with the world size and the version forced as CLI flags would.
 */
export function pyScenario(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv, fnName?: string): PyScenario | undefined {
  const module = pyModuleOf(doc);
  if (!module) return undefined;
  const fn = configFunctions(module).find((f) => fnName === undefined || f.name === fnName);
  if (!fn) return undefined;
  const directives = parseDirectives(doc.comments);
  const root = { module, file: doc.uri, ...(env.documentPath ? { path: env.documentPath } : {}), isRoot: true };
  const ev = evaluateConfig(fn, root, env);
  const launch = launchOf(fn.name, env);
  return {
    name: fn.name,
    resolve(worldSize, versionId) {
      const version = parsePyVersion(versionId);
      if (!version) return undefined;
      const forced: AnalysisSettings = { ...settings, origin: "cli", worldSize, worldSizeByFunction: {}, torchtitanVersion: versionId };
      const r = resolveConfig(ev, doc, version, forced, env, directives, launch);
      const simulation = r.simulationInput ? simulate(r.simulationInput) : undefined;
      return { r, ...(simulation ? { simulation } : {}) };
    },
  };
}

/** The engine's step for one resolved function, with the throughput alternatives computed when first read. */
export function simulateFunction(r: PyResolution): Simulation | undefined {
  const input = r.simulationInput;
  if (!input) return undefined;
  const sim = simulate(input);
  if (sim?.throughput) {
    sim.throughput.gpu = { value: r.gpu.value, source: r.gpu.source };
    defineLazy(sim.throughput, "alternatives", () => throughputAlternatives(input, sim, r.worldSize.value));
  }
  return sim;
}

/** One function's full report: its summary, then the per-op simulation of its step. */
function functionReport(f: PyFunctionResult, sim: Simulation | undefined): string {
  const parts = [f.markdown, "", "---", ""];
  parts.push(sim ? renderSimulationMarkdown(sim) : "_No simulation: the launch would fail before training, a dtype is not one torch knows (see the diagnostics), or a dtype is not known (see Not certain)._");
  return parts.join("\n");
}

const MECHANISM: Readonly<Record<string, string>> = table({
  fully_shard: "FSDP2 MixedPrecisionPolicy",
  autocast: "torch.autocast",
  none: "no mixed precision",
  error: "the launch fails",
});

function headlineOf(r: PyResolution): string {
  if (r.decision.mechanism === "error") return `${r.layoutName}: the launch fails`;
  const p = r.precision;
  const where = r.worldSize.value === 1 ? r.layoutName : `${r.layoutName} on ${r.worldSize.value} GPUs`;
  if (!p) return `${where}: a dtype setting fails at launch`;
  const red = p.gradReduce.dtype ? `${shortDtype(p.gradReduce.dtype)} reduce` : / not known: /.test(p.gradReduce.knob) ? "? reduce" : "no reduce";
  const opt = r.optimizerState.dtype ? `${shortDtype(r.optimizerState.dtype)} optimizer state` : "";
  const others = r.assumptions.length - (r.worldSize.source === "default" ? 1 : 0);
  const guess = `${r.worldSize.source === "default" ? ` (NGPU=${r.worldSize.value} assumed)` : ""}${others > 0 ? ` · ${others} not certain` : ""}`;
  // A dtype the evaluation does not know is "?" (null with a "not known" knob), never the default it would have.
  const dt = (x: { dtype: string | null; knob: string }, none: string): string => (x.dtype ? shortDtype(x.dtype as never) : / not known: /.test(x.knob) ? "?" : none);
  return `${where}: ${dt(p.paramStorage, "fp32")} params, ${dt(p.compute, "fp32")} compute, ${red}${opt ? `, ${opt}` : ""}${guess}`;
}

function fieldSource(f: FieldValue & { override?: { file: string } }, docUri: string): string {
  if (f.override) return `flag in ${f.override.file}`;
  if (f.state === "default") return `default, ${f.spec.source}`;
  if (f.state === "unknown") return `not known: ${f.why}`;
  if (f.origin && f.origin.file !== docUri) return `${f.origin.via ? `${f.origin.via}() in ` : ""}${f.origin.file}`;
  return `line ${(f.origin?.range.start.line ?? 0) + 1}`;
}

function functionMarkdown(r: PyResolution, ctx: PyContext, headline: string): string {
  const ev = r.evaluated;
  const uri = r.view.uri;
  const p = r.precision;
  const row = (what: string, d: string | null | undefined, knob: string): string => `| ${what} | ${d ? shortDtype(d as never) : "—"} | ${knob} |`;
  const lines: string[] = [`### Precision Lens — \`${ev.fn.name}()\``, "", `**${headline}**`, ""];
  lines.push(`torchtitan ${ctx.version.value.id} (${ctx.version.detail}); world size ${r.worldSize.value} (${r.worldSize.detail}).`, "");
  if (ctx.tomlPin) lines.push(`_The workspace pins a torchtitan that reads TOML, not Python registries (${ctx.tomlPin}); this function is analysed as ${ctx.version.value.id}._`, "");
  lines.push(`Mechanism: **${MECHANISM[r.decision.mechanism] ?? r.decision.mechanism}** — ${r.decision.reason}${r.decision.error ? `: ${r.decision.error}` : ""}.`, "");
  if (p) {
    lines.push("| | dtype | from |", "|---|---|---|");
    lines.push(row("parameters (storage)", p.paramStorage.dtype, p.paramStorage.knob));
    lines.push(row("compute", p.compute.dtype, p.compute.knob));
    lines.push(row("gradient reduction", p.gradReduce.dtype, p.gradReduce.knob));
    lines.push(row("optimizer state", r.optimizerState.dtype, r.optimizerState.knob), "");
  }
  if (r.decision.mechanism === "fully_shard" && ctx.version.value.date >= ALWAYS_FSDP_DATE && p?.compute.dtype === "bfloat16") {
    lines.push("Since #2900 (2026-04-09) every layout gets FSDP2's MixedPrecisionPolicy and nothing uses autocast: the RMSNorms run on bf16 inputs and weights, where autocast's fp32 list once applied on DDP, one GPU and TP-only; the loss still upcasts its logits to fp32 (`pred.float()`, torchtitan/components/loss.py@b5bcd76c6:58). The per-op table of the report has each op.", "");
  }
  const ac = ev.activationCheckpoint;
  lines.push(`Activation checkpointing: ${ac.mode}${ac.unknown ? ` (${ac.unknown})` : ac.source ? ` (default, ${ac.source})` : ""}.`);
  if (Array.isArray(ev.converters)) {
    if (ev.converters.length) lines.push(`Converters: ${ev.converters.map((c) => `${c.kind} (\`${c.name}\`)`).join(", ")}: the converted linears compute in their low-precision format.`);
  } else lines.push(`Converters: not known (${ev.converters.unknown}).`);
  lines.push("", "| field | value | from |", "|---|---|---|");
  for (const [key, f] of r.fields) {
    if (f.state === "default" && !["training.dtype", "training.mixed_precision_param", "training.mixed_precision_reduce", "parallelism.data_parallel_shard_degree"].includes(key)) continue;
    lines.push(`| \`${key}\` | ${f.state === "unknown" ? "?" : codeSpan(JSON.stringify(f.value)).replace(/\|/g, "\\|")} | ${mdProse(fieldSource(f, uri), { cell: true })} |`);
  }
  if (ev.chain.length) lines.push("", `Followed: ${ev.chain.map((c) => `\`${c}\``).join(" → ")}.`);
  if (ev.unreadable) lines.push("", `_Not followed: ${mdProse(ev.unreadable)}._`);
  if (r.assumptions.length) lines.push("", "**Not certain** (the picture rests on these):", ...r.assumptions.slice(0, 12).map((a) => `- ${mdProse(a)}`));
  return lines.join("\n");
}

/** A hover on each precision field written in this file: its doc, choices, source and what it resolved to. */
function fieldHovers(doc: ConfigDocument, f: PyFunctionResult, ctx: PyContext): HoverTarget[] {
  const out: HoverTarget[] = [];
  for (const [key, v] of f.r.fields) {
    if (v.state !== "set" || !v.origin || v.origin.file !== doc.uri) continue;
    const choices = choicesAt(v.spec, ctx.version.value.date);
    const lines = [`**\`${key}\`** = ${codeSpan(JSON.stringify(v.value))} in \`${f.name}()\``, "", v.spec.doc, "", `Default \`${JSON.stringify(v.spec.default)}\` (${v.spec.source})${choices ? `; choices in torchtitan ${ctx.version.value.id}: ${choices.map((c) => `\`${c}\``).join(", ")}` : ""}.`, "", `Resolved: ${f.headline}.`];
    out.push({ range: v.origin.range, markdown: lines.join("\n") });
    // The field's name (`tensor_parallel_degree=`, `config.compile.enable =`) gets the same hover (issue #34).
    const name = fieldNameRange(doc, v.origin.range, key.split(".").pop()!);
    if (name) out.push({ range: name, markdown: lines.join("\n") });
  }
  return out;
}

/** The range of `name` written just before a value (`name=value`, `x.name = value`) on the value's line. */
function fieldNameRange(doc: ConfigDocument, value: Range, name: string): Range | undefined {
  const line = value.start.line;
  const start = doc.lines.offsetAt({ line, character: 0 });
  const before = doc.text.slice(start, doc.lines.offsetAt(value.start));
  if (before.length > 2000) return undefined;
  const m = /([A-Za-z_][A-Za-z0-9_]*)\s*=\s*$/.exec(before);
  if (!m || m[1] !== name) return undefined;
  return { start: { line, character: m.index }, end: { line, character: m.index + name.length } };
}

/**
 * `precision-lens probe FILE [--out probe.py] [--device cuda|cpu]`: writes a self-contained PyTorch script
 * that reproduces the resolved layout and mechanism of one torchtitan config (cli/probeScript.ts) and
 * measures one training step per variant: as configured, mixed precision off, the suggested fix.
 *
 * `precision-lens probe --compare OBSERVED.json FILE [--format text|json]`: re-simulates each observed
 * variant at the layout and on the device the observation names, and diffs every dtype; exit 1 naming
 * each difference, 0 when clean.
 *
 * The script is generated from the resolved analysis (a JSON plan of enumerations and numbers), never
 * from config text; nothing is executed here.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument, formatOf } from "../core/analyze";
import type { AnalysisResult } from "../core/analysis";
import { simulate } from "../core/engine";
import type { EDType } from "../core/engine/dtypes";
import type { Simulation, SimulationInput } from "../core/engine/types";
import { degreesLabel, variantInputs } from "../core/frameworks/torchtitan/throughput";
import type { ParallelLayout } from "../core/model/layout";
import { collectConfigs, decodeUtf8, readBounded } from "../host/files";
import { nodeEnv } from "../host/nodeEnv";
import { escapeControls } from "../host/terminal";
import type { CliIO } from "./io";
import { parseCheckArgs } from "./options";
import { PROBE_BODY } from "./probeScript";
import { USAGE, UsageError } from "./usage";

export type ProbeDevice = "cuda" | "cpu";

/** One variant the script runs: everything it needs, nothing from the config's text. */
export interface ProbeVariant {
  label: string;
  mechanism: "fully_shard" | "autocast" | "none";
  paramDtype: string;
  reduceDtype: string;
  trainingDtype: string;
  ddp: boolean;
  castForwardInputs: boolean;
  lossParallel: boolean;
  layout: ParallelLayout;
}

export interface ProbePlan {
  device: ProbeDevice;
  /** The config's file name (display only). */
  source: string;
  /** What of the resolved run the script does not reproduce, each named. */
  notReproduced: string[];
  variants: ProbeVariant[];
}

/** The observation the script prints (its shape; the script is in probeScript.ts). */
export interface ObservedVariant {
  label: string;
  mechanism: string;
  paramDtype: string;
  reduceDtype: string;
  trainingDtype: string;
  ddp: boolean;
  layout: ParallelLayout;
  worldSize: number;
  forward: Record<string, string>;
  backward: Record<string, string>;
  params: Record<string, { storage?: string; compute?: string; stored?: string | null; optimizerState?: string | null }>;
  optimizerState?: string | null;
  collectives: Record<string, string[]>;
  unmapped?: string[];
  stepSeconds?: number;
  tokensPerSecondPerRank?: number | null;
  peakBytes?: number | null;
}

export interface Observation {
  probe: number;
  device: ProbeDevice;
  torch: string;
  variants: ObservedVariant[];
  skipped?: { label: string; why: string }[];
}

export interface ProbeDifference {
  variant: string;
  claim: string;
  predicted: string;
  observed: string;
}

export interface ProbeClaim extends ProbeDifference {
  agree: boolean;
}

export interface ProbeComparison {
  device: ProbeDevice;
  variants: number;
  claims: number;
  differences: ProbeDifference[];
  /** Every claim compared, agreeing or not (the oracle's ledger reads them). */
  checked: ProbeClaim[];
  throughput: { variant: string; observedTokensPerSecondPerRank: number | null; predictedTokensPerSecondPerGpu: number | null; observedPeakBytes: number | null; predictedPeakBytes: number | null }[];
}

const DTYPES = new Set(["float32", "bfloat16", "float16", "float64"]);

/** The variants of the configured run, as the script runs them; undefined (with the reason) when there is none. */
export function probePlan(r: AnalysisResult, source: string, device: ProbeDevice): ProbePlan | { error: string } {
  if (r.framework !== "torchtitan") return { error: `the probe reproduces torchtitan configs; this file is ${r.framework ?? "not a recognised training config"}` };
  const input = r.simulationInput;
  const sim = r.simulation;
  if (!input || !sim) return { error: "no simulation for this config (the launch fails, or the dtypes are not resolved): nothing to reproduce" };
  const world = r.worldSize?.value ?? 1;
  const all = [{ label: `${degreesLabel(input.layout)} as configured`, input }, ...variantInputs(input, sim, world)];
  const variants: ProbeVariant[] = [];
  for (const v of all) {
    const mech = v.input.mechanism;
    if (mech === "error") continue;
    for (const d of [v.input.paramDtype, v.input.reduceDtype, v.input.trainingDtype]) if (!DTYPES.has(d)) return { error: `dtype ${d} is not reproduced by the probe` };
    variants.push({
      label: v.label,
      mechanism: mech,
      paramDtype: v.input.paramDtype,
      reduceDtype: v.input.reduceDtype,
      trainingDtype: v.input.trainingDtype,
      ddp: v.input.ddp,
      castForwardInputs: v.input.castForwardInputs ?? true,
      lossParallel: v.input.lossParallel ?? true,
      layout: { ...v.input.layout },
    });
  }
  return { device, source, notReproduced: notReproduced(input, sim), variants };
}

/** What the probe leaves out of the resolved run, each named (its observation is compared without it). */
export function notReproduced(input: SimulationInput, sim: Simulation): string[] {
  const out: string[] = [];
  const L = input.layout;
  if (L.cp > 1) out.push(`context parallel (CP ${L.cp}): the probe runs CP 1 (ring attention is not reproduced)`);
  if (L.pp > 1) out.push(`pipeline parallel (PP ${L.pp}): the probe runs PP 1 (no stages, no send/recv)`);
  if (L.ep > 1) out.push(`expert parallel (EP ${L.ep}): the probe's model is dense`);
  if (input.float8) out.push("float8 linears: the probe's linears are nn.Linear");
  if (input.activationCheckpoint && input.activationCheckpoint !== "none") out.push(`activation checkpointing (${input.activationCheckpoint}): not applied`);
  if (input.compile?.model || input.compile?.loss) out.push("torch.compile: not applied (eager)");
  if (input.cpuOffload) out.push("FSDP CPU offload: not applied");
  if (input.asyncTp) out.push("async tensor parallel: not applied");
  if (sim.model && sim.model.attention !== "sdpa") out.push(`${sim.model.attention} attention: the probe uses SDPA`);
  out.push(`model size: ${sim.model ? `${sim.model.name} ${sim.model.flavor}` : "the model"} is reproduced by its op structure only (dim 64, 2 layers, vocab 256, seq 32, batch 2)`);
  out.push("layout: scaled down to the ranks the script runs with (tp, then dp_shard, then dp_replicate, each at least 2 while they fit)");
  return out;
}

/** The script: a header saying what it is, the plan as one JSON literal, the fixed body. */
export function probeScript(plan: ProbePlan): string {
  // JSON inside a raw triple-quoted literal: a single quote is written as \u0027, so the literal cannot end early.
  const json = JSON.stringify(plan).replace(/'/g, "\\u0027");
  const lines = [
    "#!/usr/bin/env python3",
    "# Generated by `precision-lens probe` from the resolved layout of one config (no config text is in this file).",
    "# It reproduces the mechanism and layout with PyTorch only and measures one training step per variant.",
    "#   python probe.py --device cuda [--nproc N] [--out observed.json]     (spawns its own ranks)",
    "#   torchrun --nproc_per_node N probe.py --device cuda --out observed.json",
    "#   precision-lens probe --compare observed.json CONFIG                   (diffs observation and prediction)",
    "# Not reproduced:",
    ...plan.notReproduced.map((n) => `#   - ${n.replace(/[\r\n]/g, " ")}`),
    "import json",
    `PLAN = json.loads(r'''${json}''')`,
    PROBE_BODY,
  ];
  return lines.join("\n");
}

interface ProbeArgs {
  out?: string;
  device: ProbeDevice;
  compare?: string;
  format: "text" | "json";
  rest: string[];
}

function parseProbeArgs(args: string[]): ProbeArgs {
  const out: ProbeArgs = { device: "cuda", format: "text", rest: [] };
  const take = (i: number, flag: string): string => {
    const v = args[i + 1];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--out") out.out = take(i++, a);
    else if (a === "--compare") out.compare = take(i++, a);
    else if (a === "--device") {
      const v = take(i++, a);
      if (v !== "cuda" && v !== "cpu") throw new UsageError(`--device must be cuda or cpu, got "${v}"`);
      out.device = v;
    } else if (a === "--format") {
      const v = take(i++, a);
      if (v !== "text" && v !== "json") throw new UsageError(`probe --format must be text or json, got "${v}"`);
      out.format = v;
    } else out.rest.push(a);
  }
  return out;
}

function analyzeOne(path: string, opts: ReturnType<typeof parseCheckArgs>, io: CliIO): AnalysisResult | string {
  const { files, errors } = collectConfigs(path, io.cwd);
  if (errors.length || files.length !== 1) return errors[0]?.error ?? "not a single file";
  const f = files[0]!;
  const read = readBounded(f);
  if (!read.ok) return read.error;
  return analyzeDocument(pathToFileURL(f).href, decodeUtf8(read.bytes), opts.settings, nodeEnv(f, [io.cwd]), formatOf(f));
}

export function probe(args: string[], io: CliIO): number {
  const p = parseProbeArgs(args);
  const opts = parseCheckArgs(p.rest, io.cwd);
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (opts.fix || opts.format !== "text" || opts.verbose || opts.quiet || opts.maxWarnings !== undefined || opts.stdinFilename !== undefined) throw new UsageError("probe takes only --world-size, --torchtitan-version, --gpu, --device, --out, --compare, --format text|json and one file");
  if (opts.paths.length !== 1) throw new UsageError("probe takes exactly one config file");
  if (p.compare && p.out) throw new UsageError("probe: --out writes a script, --compare reads an observation; give one");
  if (!p.compare && p.format !== "text") throw new UsageError("probe: --format applies to --compare");
  const shown = escapeControls(opts.paths[0]!);
  const r = analyzeOne(opts.paths[0]!, opts, io);
  if (typeof r === "string") {
    io.stderr(`precision-lens: ${shown}: ${r}\n`);
    return 2;
  }
  if (p.compare) return compareCommand(p, r, shown, io);
  const plan = probePlan(r, opts.paths[0]!.split(/[\\/]/).pop() ?? "config", p.device);
  if ("error" in plan) {
    io.stderr(`precision-lens: ${shown}: ${plan.error}\n`);
    return 2;
  }
  const script = probeScript(plan);
  if (!p.out) {
    io.stdout(script);
    return 0;
  }
  writeFileSync(resolve(io.cwd, p.out), script);
  io.stdout(`wrote ${escapeControls(p.out)}: ${plan.variants.length} variant${plan.variants.length === 1 ? "" : "s"} (${plan.variants.map((v) => v.label).join("; ")}); run it with \`python ${escapeControls(p.out)} --device ${p.device}\`\n`);
  return 0;
}

function compareCommand(p: ProbeArgs, r: AnalysisResult, shown: string, io: CliIO): number {
  const read = readBounded(resolve(io.cwd, p.compare!));
  if (!read.ok) {
    io.stderr(`precision-lens: ${escapeControls(p.compare!)}: ${read.error}\n`);
    return 2;
  }
  let obs: Observation;
  try {
    obs = parseObservation(JSON.parse(decodeUtf8(read.bytes)));
  } catch (e) {
    io.stderr(`precision-lens: ${escapeControls(p.compare!)}: not a probe observation (${(e as Error).message})\n`);
    return 2;
  }
  const c = compareObservation(r, obs);
  if ("error" in c) {
    io.stderr(`precision-lens: ${shown}: ${c.error}\n`);
    return 2;
  }
  if (p.format === "json") io.stdout(JSON.stringify(c, null, 1) + "\n");
  else {
    for (const d of c.differences) io.stdout(`${shown}: variant "${escapeControls(d.variant)}": ${d.claim}: predicted ${d.predicted}, observed ${escapeControls(d.observed)}\n`);
    for (const t of c.throughput)
      io.stdout(`${shown}: variant "${escapeControls(t.variant)}": observed ${t.observedTokensPerSecondPerRank === null ? "?" : Math.round(t.observedTokensPerSecondPerRank)} tokens/s per rank on ${c.device} (the probe's small model; not compared), predicted ${t.predictedTokensPerSecondPerGpu === null ? "?" : Math.round(t.predictedTokensPerSecondPerGpu)} tokens/s per GPU for the configured model\n`);
    io.stdout(c.differences.length ? `${c.differences.length} difference${c.differences.length === 1 ? "" : "s"} in ${c.claims} claims over ${c.variants} variants (${c.device})\n` : `clean: ${c.claims} claims over ${c.variants} variants agree (${c.device})\n`);
  }
  return c.differences.length ? 1 : 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks the observation's shape (it is user input) and returns it typed. */
export function parseObservation(j: unknown): Observation {
  if (!isRecord(j) || j.probe !== 1) throw new Error('no "probe": 1');
  if (j.device !== "cpu" && j.device !== "cuda") throw new Error('"device" must be "cpu" or "cuda"');
  if (!Array.isArray(j.variants)) throw new Error('no "variants" list');
  for (const v of j.variants) {
    if (!isRecord(v) || typeof v.label !== "string" || !isRecord(v.layout) || !isRecord(v.forward) || !isRecord(v.params) || !isRecord(v.collectives)) throw new Error("a variant lacks label, layout, forward, params or collectives");
  }
  return j as unknown as Observation;
}

function torchAtLeast(v: string, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(v);
  return !!m && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
}

/** The prediction for one observed variant: the configured input changed to that variant, at the observed layout and device. */
export function predictionInput(base: SimulationInput, pv: ProbeVariant, v: ObservedVariant, obs: Observation): SimulationInput {
  const deg = (k: keyof ParallelLayout): number => {
    const n = (v.layout as Partial<ParallelLayout>)[k];
    return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 1 << 20 ? n : 1;
  };
  const layout: ParallelLayout = { dp_replicate: deg("dp_replicate"), dp_shard: deg("dp_shard"), cp: deg("cp"), tp: deg("tp"), pp: deg("pp"), ep: deg("ep"), etp: deg("etp") };
  const input: SimulationInput = {
    ...base,
    mechanism: pv.mechanism,
    paramDtype: pv.paramDtype as SimulationInput["paramDtype"],
    reduceDtype: pv.reduceDtype as SimulationInput["reduceDtype"],
    trainingDtype: pv.trainingDtype as SimulationInput["trainingDtype"],
    ddp: pv.ddp,
    layout,
    device: obs.device,
    // What the probe does not reproduce (notReproduced) is left out of the prediction too.
    activationCheckpoint: "none",
    compile: { model: false, loss: false },
    cpuOffload: false,
    asyncTp: false,
  };
  delete input.float8;
  delete input.model;
  // CUDA autocast lists rms_norm as fp32 from PyTorch 2.12 (assumptions.ts rms_norm_autocast): the observation names its torch.
  if (obs.device === "cuda" && torchAtLeast(obs.torch, 2, 12)) input.assumptions = { ...base.assumptions, rms_norm_autocast: "fp32" };
  return input;
}

/** Every observed dtype against the prediction for the variant's layout and device. */
export function compareObservation(r: AnalysisResult, obs: Observation): ProbeComparison | { error: string } {
  const base = r.simulationInput;
  if (!base) return { error: "no simulation for this config: nothing to compare" };
  const out: ProbeComparison = { device: obs.device, variants: 0, claims: 0, differences: [], checked: [], throughput: [] };
  const plan = probePlan(r, "", obs.device);
  const planned = "error" in plan ? [] : plan.variants;
  const labels = planned.map((v) => v.label);
  for (const v of obs.variants) {
    out.variants++;
    const diff = (claim: string, predicted: string | undefined, observed: string | undefined | null): void => {
      out.claims++;
      const c = { variant: v.label, claim, predicted: predicted ?? "absent", observed: observed ?? "absent" };
      const agree = c.predicted === c.observed;
      out.checked.push({ ...c, agree });
      if (!agree) out.differences.push(c);
    };
    if (!labels.includes(v.label)) {
      diff("variant", labels.join("; ") || "none", v.label);
      continue;
    }
    const pv = planned.find((x) => x.label === v.label)!;
    // The observation says what it ran: the plan's mechanism and dtypes, on a layout scaled down from the plan's.
    diff("mechanism", pv.mechanism, v.mechanism);
    diff("dtypes (param / reduce / storage)", `${pv.paramDtype} / ${pv.reduceDtype} / ${pv.trainingDtype}`, `${v.paramDtype} / ${v.reduceDtype} / ${v.trainingDtype}`);
    const sim = simulate(predictionInput(base, pv, v, obs));
    if (!sim) {
      diff("simulation", "a launch error", "a training step");
      continue;
    }
    for (const o of sim.forward) diff(`forward.${o.op}`, o.dtype, v.forward[o.op]);
    for (const g of sim.backward) if (v.backward && g.op in v.backward) diff(`backward.${g.op} (gradient of the output)`, g.gradOutput, v.backward[g.op]);
    const seenOps = new Set<string>();
    for (const pr of sim.params) {
      if (seenOps.has(pr.op)) continue;
      seenOps.add(pr.op);
      const ob = v.params[pr.op];
      diff(`params.${pr.op}.storage`, pr.storage, ob?.storage);
      diff(`params.${pr.op}.compute`, pr.compute, ob?.compute);
      diff(`params.${pr.op}.grad (stored)`, pr.stored, ob?.stored);
      diff(`params.${pr.op}.optimizerState`, pr.optimizerState, ob?.optimizerState);
    }
    diff("optimizerState", sim.optimizerState, v.optimizerState);
    const predicted = new Map<string, EDType>(sim.collectives.map((c) => [c.name, c.dtype]));
    for (const [name, dtype] of predicted) diff(`collectives.${name}`, dtype, v.collectives[name]?.join(" and "));
    for (const name of Object.keys(v.collectives)) if (!predicted.has(name as never)) diff(`collectives.${name}`, undefined, v.collectives[name]!.join(" and "));
    for (const u of v.unmapped ?? []) diff("collectives (unmapped)", undefined, u);
    const full = simulate({ ...predictionInput(base, pv, v, obs), ...(base.model ? { model: base.model } : {}) });
    out.throughput.push({
      variant: v.label,
      observedTokensPerSecondPerRank: v.tokensPerSecondPerRank ?? null,
      predictedTokensPerSecondPerGpu: full?.throughput?.tokensPerSecondPerGpu ?? null,
      observedPeakBytes: v.peakBytes ?? null,
      predictedPeakBytes: full?.memory.perGpuBytes?.peak ?? null,
    });
  }
  return out;
}

/**
 * Axolotl YAML (spec other-frameworks.md §4): detection, resolution per mode (§4.3, itself inferred from
 * the code paths) and diagnostics AX1–AX8 (§4.4), plus the `deepspeed:` link (DS9).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, Mechanism, ParallelLayout, Sourced } from "../../analysis";
import type { ConfigDocument } from "../../model";
import type { DType } from "../../types";
import { parseJsonDocument } from "../../parse/json";
import { AXOLOTL_BUNDLED_VERSION, axolotlBundledDs } from "./dsConfigs";
import { dsConflict, dsFacts, dsTable, loadDs, type LinkedDs } from "../deepspeed/analyzer";
import { simLayout, withPerOp, type EngineSpec } from "../common/engineView";
import { requestedMode } from "../common/deepspeedLinks";
import { diagnostics, launchErrors, parseNoteDiagnostics } from "../common/diagnosticBuilder";
import { deleteLines, fix, insertLineAfter, replaceValue } from "../common/edits";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import { dt, noReduce, type PrecisionTable, toResolved } from "../common/precisionTable";
import { layout, settingWorldSize } from "../common/resolvedLayout";
import { View } from "../common/view";
import { looksBoolKey, yaml11Booleans } from "../common/yamlBooleans";

export function detectAxolotl(doc: ConfigDocument): string | undefined {
  const v = new View(doc);
  if (!v.has("base_model")) return undefined;
  const datasets = v.entry("datasets");
  const isList = datasets?.value.kind === "array";
  const size = ["sequence_len", "micro_batch_size"].find((k) => v.has(k));
  if (isList && size) return `has \`base_model\`, a \`datasets\` list and \`${size}\` (Axolotl config)`;
  return undefined;
}

export const axolotlAnalyzer: FrameworkAnalyzer = {
  id: "axolotl",
  formats: ["yaml"],
  detect: detectAxolotl,
  analyze: analyzeAxolotl,
};

function analyzeAxolotl(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const v = new View(doc);
  const d = diagnostics("axolotl");
  parseNoteDiagnostics(doc, d);
  const bf16E = v.entry("bf16");
  const fp16E = v.entry("fp16");
  const adapter = v.str("adapter");
  const fullFT = !adapter;
  const fsdpList = v.entry("fsdp");
  const hasFsdpConfig = v.isSection("fsdp_config") || (v.entry("fsdp_config") !== undefined && v.entry("fsdp_config")!.value.kind !== "null");
  const versionRaw = v.scalar("fsdp_version") ?? v.scalar("fsdp_config", "fsdp_version") ?? v.scalar("fsdp_config", "version");
  const fsdpVersion = versionRaw !== undefined ? Number(versionRaw) : undefined;
  const fsdpOn = (fsdpList !== undefined && fsdpList.value.kind !== "null") || hasFsdpConfig || fsdpVersion !== undefined;
  const fsdp2 = fsdpOn && fsdpVersion === 2;
  const dsRel = v.str("deepspeed");
  // `deepspeed:` may also hold the DeepSpeed config itself as a mapping (schema: path or dict).
  const dsInline = v.isSection("deepspeed");
  const dsOn = !!dsRel || dsInline;

  // bf16 value: auto (default), true, false; "full" is documented but rejected by the schema.
  let bf16: "auto" | boolean | "invalid" = "auto";
  if (bf16E) {
    if (bf16E.value.kind === "boolean") bf16 = bf16E.value.value as boolean;
    else if (bf16E.value.kind === "string" && bf16E.value.value === "auto") bf16 = "auto";
    else if (bf16E.value.kind === "null") bf16 = "auto";
    else bf16 = "invalid";
  }
  const fp16 = v.bool("fp16") === true;

  // AX1
  if (bf16 === "invalid" && bf16E) {
    const full = bf16E.value.value === "full";
    d.add("AX1", "error", bf16E.value.range, `\`bf16: ${bf16E.value.raw ?? String(bf16E.value.value)}\` is rejected by Axolotl's config schema (allowed: auto, true, false)${full ? "; the docs mention `bf16: full`, but the schema does not accept it" : ""}.`, [fix("Use bf16: true", [replaceValue(bf16E, "true")], true)]);
  }
  const bfe = v.entry("bf16_full_eval");
  if (bfe) d.add("AX1", "error", bfe.keyRange, "`bf16_full_eval` is not an Axolotl config key (the docs mention it, the schema does not have it); the config fails validation.", [fix("Remove bf16_full_eval", [deleteLines(doc, bfe.range)], true)]);
  // AX2
  if (bf16 === true && fp16 && fp16E) {
    d.add("AX2", "warning", fp16E.value.range, "`bf16: true` and `fp16: true` are both set: Axolotl turns fp16 off when bf16 is on, so fp16 is silently dropped. Remove one.", [fix("Remove fp16: true", [deleteLines(doc, fp16E.range)], true), ...(bf16E ? [fix("Keep fp16 (bf16: false)", [replaceValue(bf16E, "false")])] : [])]);
  }
  // AX3
  for (const k of ["bfloat16", "float16"] as const) {
    const e = v.entry(k);
    if (!e || e.value.value !== true || bf16 === false) continue;
    d.add("AX3", "information", e.value.range, `\`${k}: true\` only sets the load dtype, but \`bf16\` is ${bf16E ? String(bf16E.value.raw ?? bf16E.value.value) : "unset (auto)"}, so bf16 AMP is still turned on for Ampere or newer GPUs [inferred]. Set \`bf16: false\` for ${k} weights without AMP, or drop \`${k}\` for AMP.`, [
      bf16E ? fix("Set bf16: false (no AMP)", [replaceValue(bf16E, "false")], true) : fix("Add bf16: false (no AMP)", [insertLineAfter(doc, e.range, "bf16: false")], true),
    ]);
  }
  // AX5
  const fp8ag = v.entry("fp8_enable_fsdp_float8_all_gather");
  if (fp8ag && fp8ag.value.value === true && !fsdp2) d.add("AX5", "error", fp8ag.keyRange, "`fp8_enable_fsdp_float8_all_gather` requires `fsdp_version: 2`: Axolotl raises ValueError.");
  const fp32n = v.entry("fp32_norms");
  if (fp32n && fp32n.value.value === true && !(fsdp2 && hasFsdpConfig)) d.add("AX5", "error", fp32n.keyRange, "`fp32_norms` requires `fsdp_config` with `fsdp_version: 2`: Axolotl raises ValueError.");
  if (dsOn && fsdpOn) {
    const legacy = fsdpList !== undefined && fsdpList.value.kind !== "null";
    d.add(legacy ? "AX5" : "AX5", legacy ? "error" : "error", v.keyRange("deepspeed"), `\`deepspeed\` together with ${legacy ? "`fsdp`" : "`fsdp_config`"}: use one of DeepSpeed or FSDP.${legacy ? " Axolotl raises ValueError." : " (Axolotl's own check only covers the legacy `fsdp` list; the HF Trainer then rejects both at once.)"}`);
  }
  // AX6
  if (fp16 && fullFT && fp16E && bf16 !== true) {
    d.add("AX6", "warning", fp16E.value.range, "`fp16: true` on a full fine-tune loads the model in fp16, and the GradScaler then fails with \"Attempting to unscale FP16 gradients\". Use bf16 or a LoRA adapter.", bf16E ? [fix("Use bf16 instead", [replaceValue(fp16E, "false"), replaceValue(bf16E, "true")], true)] : [fix("Use bf16 instead", [replaceValue(fp16E, "false")], true)]);
  }
  // AX7
  if (fsdpList && fsdpList.value.kind === "array") {
    const migrate = fsdpVersion === undefined ? fix("Replace the legacy list with fsdp_version: 2", [{ range: fsdpList.range, newText: "fsdp_version: 2" }], true) : fix("Remove the legacy fsdp list", [deleteLines(doc, fsdpList.range)], true);
    d.add("AX7", "warning", fsdpList.keyRange, "The `fsdp:` list is the deprecated FSDP1 syntax (Axolotl warns). Configure FSDP with un-prefixed keys under `fsdp_config` and `fsdp_version: 2`.", [migrate]);
  }
  const prefixed = v.childKeys("fsdp_config").filter((k) => k.startsWith("fsdp_") && k !== "fsdp_version");
  if (prefixed.length) {
    d.add("AX7", "warning", v.keyRange("fsdp_config"), `\`fsdp_config\` uses deprecated \`fsdp_\`-prefixed keys (${prefixed.map((k) => `\`${k}\``).join(", ")}); Axolotl warns and wants the un-prefixed names${fsdpVersion === 2 ? "" : " together with `fsdp_version: 2`"}.`, [
      fix("Strip the fsdp_ prefixes", prefixed.map((k) => ({ range: v.keyRange("fsdp_config", k)!, newText: k.replace(/^fsdp_/, "") })), true),
    ]);
  }
  // AX8
  const opt = v.entry("optimizer");
  if (opt && fsdp2 && ["adamw_bnb_8bit", "adamw_8bit"].includes(String(opt.value.value))) {
    d.add("AX8", "error", opt.value.range, `\`optimizer: ${String(opt.value.value)}\` (bitsandbytes) with FSDP2: Axolotl raises ValueError. Use \`adamw_torch_8bit\`.`, [fix("Use adamw_torch_8bit", [replaceValue(opt, "adamw_torch_8bit")], true)]);
  }

  // DeepSpeed link.
  let ds: LinkedDs | undefined;
  if (dsInline) {
    const view = v.at("deepspeed");
    ds = { path: "the inline `deepspeed:` mapping", doc, view, facts: dsFacts(view) };
    const req = requestedMode(v, "axolotl");
    const c = dsConflict(ds.facts, req.mode, "axolotl");
    if (c) d.add("deepspeed/DS9", c.inferred ? "information" : "warning", req.key ? v.keyRange(...req.key) : v.keyRange("deepspeed"), `${req.label} here, but the inline \`deepspeed:\` mapping has ${c.what}. ${c.consequence}`);
  } else if (dsRel) {
    ds = loadDs(env, dsRel);
    if (ds) {
      const req = requestedMode(v, "axolotl");
      const c = dsConflict(ds.facts, req.mode, "axolotl");
      if (c) d.add("deepspeed/DS9", c.inferred ? "information" : "warning", req.key ? v.keyRange(...req.key) : v.keyRange("deepspeed"), `${req.label} here, but ${dsRel} has ${c.what}. ${c.consequence}`);
    } else if (!dsRel.includes("${") && !/^\{/.test(dsRel)) {
      ds = missingDs(dsRel);
      if (env.documentPath) d.add("deepspeed-config-missing", "information", v.entry("deepspeed")!.value.range, missingDsMessage(dsRel, ds));
      const req = requestedMode(v, "axolotl");
      const c = ds.missing === "bundled" ? dsConflict(ds.facts, req.mode, "axolotl") : undefined;
      if (c) d.add("deepspeed/DS9", c.inferred ? "information" : "warning", req.key ? v.keyRange(...req.key) : v.keyRange("deepspeed"), `${req.label} here, but Axolotl's bundled ${ds.path} has ${c.what}. ${c.consequence}`);
    }
  }

  // AX4 [inferred]
  const amp = bf16 === true || bf16 === "auto";
  if (fullFT && amp && !dsOn && !(fsdpOn && !fsdp2) && !v.bool("fp8")) {
    d.add("AX4", "information", bf16E?.value.range ?? v.keyRange("base_model"), `[inferred] Full fine-tune with bf16 ${bf16 === "auto" ? "(auto, the default)" : ""} on ${fsdp2 ? "FSDP2" : "a single GPU or DDP"}: Axolotl loads the model in bf16 and ${fsdp2 ? "its FSDP2 path does not upcast" : "nothing upcasts it"}, so weights, gradients and optimizer state are pure bf16 with no fp32 master copy. Use DeepSpeed ZeRO (fp32 master partitions) if you need fp32 master weights, or accept it.`.replace("  ", " "));
  }
  yaml11Booleans(doc, d, () => false, looksBoolKey);

  // Resolution.
  let worldSize: Sourced<number> | undefined = settingWorldSize(settings.worldSize);
  const sizes = { dp_shard: v.int("dp_shard_size"), dp_replicate: v.int("dp_replicate_size"), tp: v.int("tensor_parallel_size"), cp: v.int("context_parallel_size") ?? v.int("sequence_parallel_degree") };
  const anySize = Object.values(sizes).some((x) => x !== undefined);
  if (!worldSize && anySize && sizes.dp_shard !== undefined && sizes.dp_shard > 0) {
    const w = (sizes.dp_shard ?? 1) * (sizes.dp_replicate ?? 1) * (sizes.tp ?? 1) * (sizes.cp ?? 1);
    worldSize = { value: w, source: "parallel-sizes", detail: "the product of dp_shard_size × dp_replicate_size × tensor_parallel_size × context_parallel_size" };
  }
  const r = resolve(v, { fullFT, bf16, fp16, fsdpOn, fsdp2, ds, adapter }, worldSize, sizes);
  if (worldSize?.value === 1) r.table.R = noReduce();
  const failed = launchErrors(d);
  const md = summaryMarkdown({ failed, reasonLine: detectAxolotl(doc) ?? FORCED, framework: "Axolotl", layoutName: r.layoutName, worldSize, layout: r.parallel, mechanism: r.mechanism, meaning: r.meaning, table: r.table, notes: r.notes, assumptions: r.assumptions });
  const hovers = hoversAt([bf16E?.keyRange, fp16E?.keyRange, v.keyRange("bfloat16"), v.keyRange("float16"), v.keyRange("adapter"), v.keyRange("deepspeed"), v.keyRange("fsdp_version"), v.keyRange("fsdp_config"), v.keyRange("fsdp"), v.keyRange("fp8")], md);
  const out: FrameworkAnalysis = { layoutName: r.layoutName, mechanism: failed.length ? "error" : r.mechanism, precision: toResolved(r.table), diagnostics: d.out, hovers, reportMarkdown: withPerOp(md, r.engine), inlayHints: precisionHint((bf16E ?? fp16E)?.value.range, r.table, failed.length > 0) };
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}

interface Mode {
  fullFT: boolean;
  bf16: "auto" | boolean | "invalid";
  fp16: boolean;
  fsdpOn: boolean;
  fsdp2: boolean;
  ds: LinkedDs | undefined;
  adapter: string | undefined;
}

function resolve(v: View, m: Mode, worldSize: Sourced<number> | undefined, sizes: Record<string, number | undefined>): { layoutName: string; parallel?: ParallelLayout; mechanism: Mechanism; meaning: string; table: PrecisionTable; notes: string[]; assumptions: string[]; engine?: EngineSpec } {
  const notes: string[] = [];
  const assumptions: string[] = [];
  const W = worldSize?.value;
  const low = m.bf16 === true || m.bf16 === "auto" ? "bfloat16" : m.fp16 ? "float16" : undefined;
  const lowName = low === "bfloat16" ? "bf16" : "fp16";
  if (m.bf16 === "auto") assumptions.push("`axolotl-auto-bf16` — `bf16: auto` resolves to bf16 on an Ampere or newer GPU (otherwise Axolotl turns on fp16).");
  const loadDtype = v.bool("bfloat16") ? "bfloat16" : v.bool("float16") ? "float16" : low ?? "float32";
  const q = v.bool("load_in_4bit") ? "4-bit" : v.bool("load_in_8bit") ? "8-bit" : undefined;
  if (m.ds) {
    const requested = low === "bfloat16" ? "bf16" : low === "float16" ? "fp16" : "fp32";
    const r = dsTable(m.ds.facts, requested);
    const stage = m.ds.facts.stage;
    const source = m.ds.path.startsWith("the inline") ? m.ds.path : m.ds.missing === "bundled" ? `Axolotl's bundled ${m.ds.path} (its content at axolotl ${AXOLOTL_BUNDLED_VERSION}; the file itself was not found)` : m.ds.missing === "unknown" ? `a DeepSpeed file that was not found (${v.str("deepspeed")}): its stage and any explicit precision are unknown` : `the DeepSpeed file ${v.str("deepspeed")}`;
    notes.push(`Precision from ${source}; \`"auto"\` values are filled from \`bf16\`/\`fp16\` by the HF Trainer.`);
    if (m.ds.missing === "bundled") assumptions.push(`\`axolotl-bundled-ds\` — a \`deepspeed:\` path ending in \`deepspeed_configs/<name>.json\` that is not found is Axolotl's bundled file of that name, as of ${AXOLOTL_BUNDLED_VERSION}.`);
    const parallel = W ? layout(stage === 3 ? { dp_shard: W } : { dp_replicate: W }) : undefined;
    const layoutName = m.ds.missing === "unknown" ? "DeepSpeed (config file not found)" : `DeepSpeed ZeRO-${typeof stage === "number" ? stage : "auto"}`;
    return { layoutName, ...(parallel ? { parallel } : {}), mechanism: r.mechanism, meaning: r.meaning, table: r.table, notes, assumptions };
  }
  const parts: string[] = [];
  if (m.fsdpOn) {
    if ((sizes.dp_replicate ?? 1) > 1 && (sizes.dp_shard ?? 1) > 1) parts.push("HSDP");
    else parts.push(m.fsdp2 ? "FSDP2" : "FSDP1");
  } else parts.push(W && W > 1 ? "DDP" : "single GPU / DDP");
  if ((sizes.tp ?? 1) > 1) parts.push("TP");
  if ((sizes.cp ?? 1) > 1) parts.push("CP");
  const layoutName = parts.join("+");
  const parallel = W ? (m.fsdpOn ? layout({ dp_shard: sizes.dp_shard ?? W, dp_replicate: sizes.dp_replicate ?? 1, tp: sizes.tp ?? 1, cp: sizes.cp ?? 1 }) : layout({ dp_replicate: W })) : undefined;
  const base = { layoutName, ...(parallel ? { parallel } : {}), notes, assumptions };
  if (!low) {
    const d = loadDtype;
    const ld = d as DType;
    return { ...base, engine: { mechanism: m.fsdpOn ? "fully_shard" : "none", layout: simLayout(parallel, m.fsdpOn, !m.fsdpOn && (W ?? 1) > 1), ddp: !m.fsdpOn && (W ?? 1) > 1, param: ld, reduce: ld, storage: ld }, mechanism: "none", meaning: `no AMP: the model is loaded in ${d === "float32" ? "fp32" : d} and trained in it.`, table: { P: dt(d, "load dtype"), C: dt(d, "load dtype"), G: dt(d, "load dtype"), R: dt(d, "load dtype"), O: dt(d, "load dtype") } };
  }
  if (!m.fullFT) {
    notes.push(`${m.adapter} adapters are kept in fp32 by PEFT (autocast_adapter_dtype); the base model is frozen${q ? ` and quantized to ${q}` : ` in ${lowName}`}.`);
    // Under FSDP (legacy list = FSDP1 through accelerate, or FSDP2) the policy's reduce dtype is the AMP dtype.
    const R = W === 1 ? noReduce() : m.fsdpOn ? dt(low, `FSDP${m.fsdp2 ? "2" : "1"} mixed-precision reduce dtype (accelerate, from \`bf16\`/\`fp16\`)`) : dt("float32", "adapter gradients");
    return {
      ...base,
      mechanism: m.fsdpOn ? "fully_shard" : "autocast",
      meaning: `${lowName} AMP (HF Trainer) over a frozen ${q ?? lowName} base; the trainable adapters are fp32${m.fsdpOn ? `; FSDP reduces their gradients in ${lowName}` : ""}.`,
      table: { P: dt("float32", "LoRA adapters (PEFT keeps them fp32)"), C: dt(low, `HF Trainer AMP (\`bf16\`/\`fp16\`)`), G: dt("float32", "adapter gradients"), R, O: dt("float32", "optimizer over the adapters") },
    };
  }
  if (m.fsdpOn && !m.fsdp2) {
    notes.push("FSDP1 is deprecated in Axolotl.");
    return {
      ...base,
      engine: { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: low, reduce: low, storage: "float32" },
      mechanism: "fully_shard",
      meaning: `FSDP1 through accelerate: trainable parameters upcast to fp32, ${lowName} compute and ${lowName} gradient reduction.`,
      table: { P: dt("float32", "accelerate's FSDP1 upcast"), C: dt(low, "FSDP MixedPrecision param_dtype"), G: dt("float32", "gradients cast back to fp32"), R: dt(low, "FSDP MixedPrecision reduce_dtype"), O: dt("float32", "optimizer over fp32 parameters") },
    };
  }
  assumptions.push("`axolotl-no-upcast` — full fine-tune: the model is loaded in the AMP dtype and nothing upcasts it (Axolotl's FSDP2 patch of accelerate has no fp32 upcast) [spec §4.3, inferred; to verify on a GPU].");
  return {
    ...base,
    engine: m.fsdp2
      ? { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: low, reduce: low, storage: low }
      : { mechanism: "autocast", layout: simLayout(parallel, false, (W ?? 1) > 1), ddp: (W ?? 1) > 1, param: low, reduce: low, storage: low },
    mechanism: m.fsdp2 ? "fully_shard" : "autocast",
    meaning: `**pure ${lowName}**: the model is loaded in ${lowName} and HF Trainer AMP runs on top; no fp32 master copy.`,
    table: {
      P: dt(low, `loaded in ${lowName} (\`torch_dtype\` from \`bf16\`/\`fp16\`)`),
      C: dt(low, m.fsdp2 ? "FSDP2 policy from accelerate" : "HF Trainer AMP"),
      G: dt(low, "gradients of the low-precision parameters"),
      R: W === 1 ? noReduce() : dt(low, m.fsdp2 ? "FSDP2 reduce dtype" : "DDP reduces in the parameter dtype"),
      O: dt(/8bit/.test(String(v.scalar("optimizer") ?? "")) ? "8-bit" : low, `optimizer \`${String(v.scalar("optimizer") ?? "default")}\` over the parameters`),
    },
  };
}


/**
 * A `deepspeed:` file that is not on disk still means DeepSpeed: the HF Trainer hands the path to DeepSpeed,
 * which keeps fp32 master weights in its ZeRO optimizer whatever the file says about fp16/bf16. A known
 * Axolotl bundled name is read from the table in axolotlDsConfigs.ts; any other file is taken as
 * `"auto"` precision with an unknown stage.
 */
function missingDs(rel: string): LinkedDs {
  const bundled = axolotlBundledDs(rel);
  const doc = bundled?.doc ?? parseJsonDocument("axolotl-missing:deepspeed.json", '{"zero_optimization": {"stage": "auto"}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}');
  const view = new View(doc);
  return { path: bundled ? `deepspeed_configs/${bundled.name}` : rel, doc, view, facts: dsFacts(view), missing: bundled ? "bundled" : "unknown" };
}

function missingDsMessage(rel: string, ds: LinkedDs): string {
  const where = `The DeepSpeed config \`${rel}\` was not found next to this file or in a folder above it`;
  if (ds.missing === "bundled") {
    const f = ds.facts;
    const mode = f.bf16Enabled === true ? "bf16 enabled" : f.autoPrecision ? 'bf16/fp16 "auto" (filled from `bf16`/`fp16`)' : "no precision block";
    return `${where}; it names Axolotl's bundled ${ds.path}, so it is read as that file at axolotl ${AXOLOTL_BUNDLED_VERSION} (ZeRO-${String(f.stage)}, ${mode}${f.offloadOptimizer ? ", optimizer offloaded to the CPU" : ""}${f.offloadParam ? ", parameters offloaded to the CPU" : ""}).`;
  }
  return `${where}, so its own settings cannot be checked. The run still uses DeepSpeed: fp32 master weights in the ZeRO optimizer, with the precision mode from \`bf16\`/\`fp16\` here (the HF Trainer fills "auto").`;
}

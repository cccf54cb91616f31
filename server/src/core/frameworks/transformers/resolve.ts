/**
 * transformers resolution into the shared precision model, per launcher: DeepSpeed (the linked JSON resolved
 * by the DeepSpeed analyser, `"auto"` filled from `bf16`/`fp16` here, integrations/deepspeed.py
 * `trainer_config_process`), accelerate FSDP1/FSDP2 (MixedPrecision with param = reduce = the AMP dtype,
 * accelerate utils/dataclasses.py:2116-2118@v1.14.0; trainable parameters upcast to fp32 except FSDP2 at
 * accelerate 1.13.0), and plain/DDP (torch.autocast over parameters in their load dtype). Every row names the
 * key (or the default) that set it.
 */
import { unreadLink } from "../common/linkedFiles";
import { OUTSIDE_WORKSPACE } from "../../workspace/boundary";
import type { Mechanism, ParallelLayout } from "../../analysis";
import type { DType } from "../../model/types";
import { dsTable } from "../deepspeed/resolve";
import { CHECKPOINT_DTYPE, dt, isDType, noReduce, type PrecisionTable, type Row } from "../common/precisionTable";
import { workspaceCheckpointDtype } from "./rules/fp16-on-bf16-checkpoint";
import { layout } from "../common/resolvedLayout";
import { fsdp2UpcastNoOp, TRL_QLORA_BF16_SINCE } from "./data";
import { versionAtLeast } from "../../workspace/packagePin";
import type { TransformersContext } from "./context";
import { candidateList, launcherCandidates, unknownLauncherWhy } from "./candidates";
import { table } from "../../model/table";

export interface TransformersResolution {
  layoutName: string;
  parallel?: ParallelLayout;
  mechanism: Mechanism;
  meaning: string;
  table: PrecisionTable;
  setBy?: string;
  notes: string[];
  assumptions: string[];
  /** True when parameters stay in a 16-bit dtype with no fp32 master copy (under every candidate launcher when it is unknown). */
  pure16: boolean;
  /** Replaces the mechanism phrase in the hover where the candidate launchers disagree on it. */
  mechanismText?: string;
  /** The candidate launchers the rows were resolved under, when the launcher is unknown (candidates.ts). */
  byLauncher?: string[];
}

/** The plain/DDP branch's words for an unknown launcher; `byLauncher` replaces them once every candidate is resolved. */
const PLAIN_ASSUMED = "assumed single GPU/DDP.";

const SHORT: Readonly<Record<string, string>> = table({ bfloat16: "bf16", float16: "fp16", float32: "fp32" });

export function transformersResolution(ctx: TransformersContext): TransformersResolution {
  const r = resolveOne(ctx);
  const candidates = launcherCandidates(ctx);
  return candidates.length ? byLauncher(r, candidates.map((c) => ({ name: c.name, r: resolveOne(c.ctx) })), unknownLauncherWhy(ctx)) : r;
}

function resolveOne(ctx: TransformersContext): TransformersResolution {
  const r = resolve(ctx);
  if (ctx.worldSize?.value === 1) r.table.R = noReduce();
  return r;
}

const ROWS = [["P", "parameter storage"], ["C", "compute"], ["G", "gradients"], ["R", "gradient reduction"], ["O", "optimizer state"]] as const;
/** A row's value as compared between candidates: its dtype, or the kind of step it is ("none": no reduction). */
const rowValue = (row: Row): string => (row.kind === "none" ? "none" : row.dtype);
const shortOf = (x: string): string => SHORT[x] ?? x;

/**
 * The resolution of a file whose launcher is unknown, from the one of each candidate (candidates.ts; `base` is the
 * plain/DDP one, the analysis's own context): a row equal under every candidate is stated, with that provenance;
 * one that differs becomes a `byLauncher` row ("fp32 under DeepSpeed ZeRO-1/2/3 and FSDP1/2; bf16 under single
 * GPU/DDP"), never a single value. The mechanism, the meaning and the layout are stated only when every candidate
 * agrees; `pure16` only when it holds under every candidate.
 */
function byLauncher(base: TransformersResolution, all: { name: string; r: TransformersResolution }[], why: string): TransformersResolution {
  const names = all.map((c) => c.name);
  const every = candidateList(names);
  const t = { ...base.table };
  const differing: string[] = [];
  for (const [k, label] of ROWS) {
    const groups = new Map<string, string[]>();
    for (const c of all) {
      const v = rowValue(c.r.table[k]);
      groups.set(v, [...(groups.get(v) ?? []), c.name]);
    }
    if (groups.size === 1) {
      t[k] = { ...base.table[k], from: `the same under every candidate launcher; under single GPU/DDP: ${base.table[k].from}` };
      continue;
    }
    const by = [...groups].map(([v, ns]) => `${shortOf(v)} under ${candidateList(ns)}`).join("; ");
    differing.push(`${label} ${by}`);
    t[k] = {
      dtype: `${[...groups.keys()].map(shortOf).join(" or ")} by launcher`,
      from: `${why}: ${by}`,
      kind: "byLauncher",
      byLauncher: Object.fromEntries(all.map((c) => { const row = c.r.table[k]; return [c.name, row.kind || !isDType(row.dtype) ? null : row.dtype]; })),
    };
  }
  const mech = candidateMechanisms(all);
  const same = <T>(f: (r: TransformersResolution) => T): boolean => all.every((c) => JSON.stringify(f(c.r)) === JSON.stringify(f(base)));
  const sameParallel = same((r) => r.parallel ?? null);
  const assumptions = base.assumptions.map((a) => a.replace(PLAIN_ASSUMED, `each row resolved under every candidate launcher (${every})${differing.length ? "; the rows that differ are shown by launcher" : ": they agree"}.`));
  const out: TransformersResolution = {
    layoutName: same((r) => r.layoutName) ? base.layoutName : `${why} (single GPU/DDP, DeepSpeed or FSDP)`,
    ...(sameParallel && base.parallel ? { parallel: base.parallel } : {}),
    mechanism: base.mechanism,
    meaning: differing.length ? `${why}, and the candidates differ: ${differing.join("; ")}.` : !mech ? base.meaning : `${why}: every row is the same under every candidate launcher (${every}).`,
    table: t,
    notes: base.notes,
    assumptions,
    pure16: all.every((c) => c.r.pure16),
    byLauncher: names,
  };
  if (mech) out.mechanismText = `depends on the launcher (${why.replace(/^launcher /, "")}): ${mech}`;
  if (base.setBy) out.setBy = base.setBy;
  return out;
}

/** What runs in 16 bits under one candidate, in words: the mechanism as the hover names it, shortened. */
function mechanismOf(r: TransformersResolution): string {
  const c = r.table.C.dtype;
  if (!isDType(c) || c === "float32" || c === "float64") return "no mixed precision";
  if (r.mechanism === "autocast") return "torch.autocast";
  if (r.mechanism === "fully_shard") return "FSDP MixedPrecision";
  return `${shortOf(c)} model cast`;
}

/** "torch.autocast under single GPU/DDP; …": each candidate's mechanism, grouped; undefined when they agree. */
function candidateMechanisms(all: { name: string; r: TransformersResolution }[]): string | undefined {
  const groups = new Map<string, string[]>();
  for (const c of all) {
    const m = mechanismOf(c.r);
    groups.set(m, [...(groups.get(m) ?? []), c.name]);
  }
  return groups.size > 1 ? [...groups].map(([m, ns]) => `${m} under ${candidateList(ns)}`).join("; ") : undefined;
}

function resolve(ctx: TransformersContext): TransformersResolution {
  const { bf16, fp16, amp, load, launcher, ds, adapters, pureBf16, worldSize, accel } = ctx;
  const notes: string[] = [];
  const assumptions: string[] = [];
  const W = worldSize?.value;
  for (const s of [bf16, fp16, load]) if (s.source === "assumed") assumptions.push(s.detail);
  const low: DType | undefined = amp.value === "bf16" ? "bfloat16" : amp.value === "fp16" ? "float16" : undefined;
  const ampKey = !low ? "" : amp.source === "file" ? (pureBf16 ? "`pure_bf16`" : `\`${amp.value}: true\``) : amp.source === "launcher" ? amp.detail : `\`bf16\` (${bf16.detail})`;
  void fp16;
  if (accel && ctx.launcherFrom === "accelerate") {
    // With no config file (`guessed`) the distributed type is accelerate's default config's: not stated (candidates.ts).
    if (!accel.guessed || ctx.candidate) notes.push(`Launched with ${accel.path.endsWith("#launch") ? accel.rel : `the accelerate config ${accel.rel}`} (${accel.how}): \`distributed_type: ${accel.distType ?? "?"}\`${accel.mixed ? `, \`mixed_precision: ${accel.mixed}\`` : ""}.`);
    for (const f of accel.flagNotes ?? []) notes.push(`${f}.`);
    if (accel.guessed) assumptions.push(`${accel.how} names no accelerate config file: accelerate's default config on the machine decides the launcher; ${PLAIN_ASSUMED}`);
  }
  if (accel?.missing) assumptions.push(`launcher not found: ${accel.how} names \`${accel.missing}\`, which ${accel.isDeepSpeedJson ? "is a DeepSpeed JSON, not an accelerate config" : accel.missingOutside ? OUTSIDE_WORKSPACE : "is not in the workspace"}; ${PLAIN_ASSUMED}`);
  const L = load.value;
  // transformers 5 loads in the checkpoint's dtype: read from the model folder's config.json when the workspace holds
  // it, else unknown (CHECKPOINT_DTYPE, null in the contract). The Trainer saves the parameters as they are
  // (save_pretrained records `model.dtype`, modeling_utils.py:3440-3443@5.24.0): a checkpoint in the storage dtype.
  const ckpt = L === "auto" ? checkpointDtypeOf(ctx) : undefined;
  const loadRow = (why: string): Row => (ckpt ? dt(ckpt.dtype, `${load.detail}: \`${ckpt.key}\` in ${ckpt.file}${why}`) : L === "auto" || L === "unknown" ? dt(L === "auto" ? CHECKPOINT_DTYPE : "load dtype", `${load.detail}${why}`) : dt(L, `${load.detail}${why}`));

  if (launcher === "deepspeed") {
    const requested = low === "bfloat16" ? "bf16" : low === "float16" ? "fp16" : "fp32";
    if (ds) {
      // `"auto"` is filled by the Trainer from TrainingArguments: name the key (or the default) that decided it.
      const by = !low ? undefined : amp.source === "file" ? `${pureBf16 ? "`pure_bf16: true`" : `\`${amp.value}: true\``} in this file` : amp.source === "launcher" ? `\`mixed_precision: ${amp.value}\` in ${accel?.rel ?? "the accelerate config"}` : `\`bf16\` (${bf16.detail})`;
      // accelerate's DeepSpeedPlugin.set_mixed_precision inserts `{"enabled": true}` for the mixed precision when the
      // file has no such block (utils/dataclasses.py:1416-1420@v1.14.0); the Trainer's Accelerator calls it for a
      // `deepspeed:` file too.
      let facts = ds.facts;
      if (requested !== "fp32" && facts.mode === "fp32" && (requested === "bf16" ? facts.bf16Enabled : facts.fp16Enabled) === undefined) {
        facts = { ...facts, mode: requested, ...(requested === "bf16" ? { bf16Enabled: true } : { fp16Enabled: true }) };
        notes.push(`The DeepSpeed config has no \`${requested}\` block: accelerate inserts \`${requested}.enabled: true\` from ${by ?? "the mixed precision"} (DeepSpeedPlugin.set_mixed_precision).`);
      }
      const t = dsTable(facts, requested, by);
      const stage = ds.facts.stage;
      const where = ctx.dsSource === "inline" ? ds.path : ctx.dsSource === "launcher" ? (accel?.ds ? `the DeepSpeed file ${accel.dsRel} (from ${accel.rel})` : ds.path) : `the DeepSpeed file ${ctx.dsRel}`;
      notes.push(`Precision from ${where}; its \`"auto"\` values are filled from this file by the Trainer (transformers integrations/deepspeed.py \`trainer_config_process\`).`);
      const parallel = W ? layout(stage === 3 ? { dp_shard: W } : { dp_replicate: W }) : undefined;
      return { layoutName: `DeepSpeed ZeRO-${typeof stage === "number" ? stage : "auto"}`, ...(parallel ? { parallel } : {}), mechanism: t.mechanism, meaning: t.meaning, table: t.table, notes, assumptions, pure16: t.table.P.dtype !== "float32" && t.table.P.dtype !== "float64" };
    }
    // Not found, or outside the workspace (not read, named by its file name only: core/workspace/boundary.ts).
    const u = unreadLink(ctx.env, ctx.dsRel ?? "");
    assumptions.push(`the DeepSpeed file \`${u.name}\` ${u.why}: its stage and explicit values are unknown; DeepSpeed's ZeRO optimizer keeps fp32 master weights.`);
    const lw = low ?? "float32";
    return {
      layoutName: `DeepSpeed (config file ${u.short})`,
      mechanism: "none",
      meaning: `DeepSpeed in ${SHORT[lw]} (from ${ampKey || "no `bf16`/`fp16`"}), fp32 master weights in its optimizer.`,
      table: { P: dt("float32", `DeepSpeed's fp32 master weights (assumed: file ${u.short})`), C: dt(lw, ampKey || "no `bf16`/`fp16`"), G: dt(lw, "DeepSpeed mode"), R: dt(lw, "DeepSpeed mode (no `communication_data_type` known)"), O: dt("float32", "DeepSpeed's ZeRO optimizer") },
      notes,
      assumptions,
      pure16: false,
    };
  }

  if (launcher === "fsdp") {
    const ver = ctx.fsdpVersion!.value;
    const parallel = W ? layout({ dp_shard: W }) : undefined;
    const base = { layoutName: `FSDP${ver} (accelerate)`, ...(parallel ? { parallel } : {}), notes, assumptions };
    if (ctx.fsdpVersion!.source === "assumed") assumptions.push(ctx.fsdpVersion!.detail);
    if (!low) {
      const P = loadRow("");
      return { ...base, mechanism: "fully_shard", meaning: "FSDP with no mixed precision: everything in the load dtype.", table: { P, C: P, G: P, R: P, O: P }, pure16: L === "bfloat16" || L === "float16" };
    }
    const acc = ctx.versions.accelerate;
    const noop = ver === 2 && fsdp2UpcastNoOp(acc.value);
    const loadedLow = L === "bfloat16" || L === "float16";
    if (noop && loadedLow) notes.push(`accelerate ${acc.value}: the FSDP2 fp32 upcast is a no-op (accelerate#3979, fixed in 1.14.0), so the parameters stay ${SHORT[L]}.`);
    const P = noop && loadedLow ? dt(L, `${load.detail}; accelerate ${acc.value}'s FSDP2 upcast is a no-op (accelerate#3979)`) : adapters ? dt("float32", "trainable adapters upcast to fp32 (accelerate FSDP upcast / PEFT)") : dt("float32", `accelerate's FSDP${ver} upcast of trainable parameters to fp32 (mixed precision on)`);
    return {
      ...base,
      mechanism: "fully_shard",
      meaning: `${SHORT[low]} mixed precision through accelerate's FSDP${ver} plugin: compute and gradient reduction in ${SHORT[low]}${P.dtype === "float32" ? ", fp32 master weights" : ", no fp32 master copy"}.`,
      table: { P, C: dt(low, `FSDP MixedPrecision param_dtype from ${ampKey}`), G: dt(P.dtype, "gradients in the parameter dtype"), R: dt(low, `FSDP MixedPrecision reduce_dtype = ${SHORT[low]} (accelerate's default with ${ampKey})`), O: dt(P.dtype, "optimizer over the sharded parameters") },
      pure16: P.dtype !== "float32",
    };
  }

  // Plain / DDP: torch.autocast over the parameters as loaded.
  if (ctx.launcherFrom === "assumed" && !accel?.missing && !ctx.candidate) assumptions.push(`launcher not found (no \`deepspeed\`/\`fsdp\` key here and no launch line naming this file): ${PLAIN_ASSUMED}`);
  const parallel = W ? layout({ dp_replicate: W }) : undefined;
  const layoutName = W && W > 1 ? "DDP" : "single GPU / DDP";
  const base = { layoutName, ...(parallel ? { parallel } : {}), notes, assumptions };
  let P: Row;
  if (ctx.dialect === "llamafactory" && ctx.v.bool("do_train") !== true) {
    // Not a training run (eval, predict, export): the model is loaded with is_trainable=do_train=False and nothing is
    // upcast (model/loader.py `load_model(…, is_trainable)`, model/adapter.py:313-323@v0.9.5).
    P = loadRow("; not training (no `do_train: true`): loaded frozen, nothing upcast");
  } else if (ctx.dialect === "llamafactory" && !pureBf16 && !ctx.v.bool("use_badam")) {
    // Trainable parameters are upcast to fp32 unless pure_bf16 / BAdam (model/adapter.py:313-323@v0.9.5).
    P = dt("float32", `LLaMA-Factory upcasts the trainable ${adapters ? `${adapters} ` : ""}parameters to fp32 (model/adapter.py)`);
  } else if (adapters && ctx.quantized && ctx.dialect === "trl" && versionAtLeast(ctx.versions.trl.value, TRL_QLORA_BF16_SINCE)) {
    P = dt("bfloat16", `TRL casts a quantized model's trainable adapter parameters to bf16 (QLoRA; trl/trainer/sft_trainer.py:1127-1130@v1.9.0, TRL ≥ ${TRL_QLORA_BF16_SINCE}; ${ctx.versions.trl.detail})`);
  } else if (adapters) P = dt("float32", "LoRA adapters (PEFT's autocast_adapter_dtype keeps them fp32)");
  else P = loadRow(pureBf16 ? "; `pure_bf16`: nothing upcasts them" : "");
  // Without autocast the matmuls run in the weights' dtype: with adapters (or LLaMA-Factory's upcast of the trainable
  // parameters only) most weights are the frozen base model's, as loaded.
  // LLaMA-Factory's `pure_bf16` (without `bf16: true`) trains in bf16 with no AMP: get_train_args sets only
  // model_args.compute_dtype (hparams/parser.py:512-513@v0.9.5); TrainingArguments.bf16 stays off, so accelerate's
  // mixed_precision is "no" and nothing autocasts (checked by oracle/frameworks/llamafactory_worker.py).
  const pureNoAmp = pureBf16 && amp.source === "file" && !bf16.value;
  const autocastLow = pureNoAmp ? undefined : low;
  const C = autocastLow ? dt(autocastLow, `torch.autocast from ${ampKey}`) : adapters && P.dtype !== L ? loadRow("; the frozen base weights (the adapters are a small part)") : P;
  // LLaMA-Factory `use_badam` (layer mode, its default): BAdam's BlockOptimizer keeps an fp32 copy of the active block
  // (`param.clone().float()`, badam/block_optim.py:515-519@1.4), casts its gradients to fp32 (:284), steps the base
  // optimizer on the copy and writes it back to the low-precision weights (:273): fp32 master weights and optimizer
  // state for the active block only. Ratio mode (BlockOptimizerRatio) keeps none.
  const badamHp = ctx.dialect === "llamafactory" && ctx.v.bool("use_badam") === true && (ctx.v.str("badam_mode") ?? "layer") === "layer" && (P.dtype === "bfloat16" || P.dtype === "float16");
  const pure16 = (P.dtype === "bfloat16" || P.dtype === "float16") && !badamHp;
  const O: Row = badamHp ? dt("float32", "BAdam's fp32 copy of the active block (its master weights and Adam state; the frozen blocks keep none)") : dt(P.dtype, "optimizer state in the parameter dtype");
  const meaning = badamHp
    ? `BAdam (layer mode): weights stored in ${SHORT[P.dtype as string]}; each step updates the active block through an fp32 copy (fp32 master weights and optimizer state for that block only), written back to ${SHORT[P.dtype as string]}.`
    : pureNoAmp
    ? `**pure bf16** (\`pure_bf16\`): loaded and trained in ${SHORT[P.dtype as string] ?? P.dtype} without autocast; no fp32 master weights.`
    : !low
    ? `no mixed precision: the model trains in its load dtype (${P.dtype}).`
    : pure16
      ? `**pure ${SHORT[P.dtype as string]}**: the model is loaded in ${SHORT[P.dtype as string]} and ${ampKey} only adds autocast; no fp32 master weights or optimizer state.`
      : P.dtype === "float32"
        ? `${SHORT[low]} AMP: torch.autocast over fp32 parameters (fp32 master weights and optimizer state).`
        : `${SHORT[low]} AMP (torch.autocast) over parameters in ${P.dtype}.`;
  return {
    ...base,
    mechanism: autocastLow ? "autocast" : "none",
    meaning,
    table: { P, C, G: dt(P.dtype, "gradients in the parameter dtype"), R: W === 1 ? noReduce() : dt(P.dtype, "DDP reduces in the gradient (parameter) dtype"), O },
    pure16,
  };
}

const CKPT_DTYPES: Readonly<Record<string, DType>> = table({ bfloat16: "bfloat16", float16: "float16", float32: "float32" });

/** The checkpoint's dtype from its config.json in the workspace (`model_name_or_path` a local folder), when stated. */
function checkpointDtypeOf(ctx: TransformersContext): { dtype: DType; key: string; file: string } | undefined {
  const model = ctx.v.str("model_name_or_path");
  const found = model ? workspaceCheckpointDtype(ctx, model) : undefined;
  const d = found ? CKPT_DTYPES[found.dtype.replace(/^torch\./, "")] : undefined;
  return found && d ? { dtype: d, key: `torch_dtype: ${found.dtype}`, file: found.file } : undefined;
}

/**
 * Lightning resolution into the shared precision model, per strategy × precision (spec
 * other-frameworks.md §3.3), and the engine's view of the run.
 */
import type { Mechanism, ParallelLayout } from "../../analysis";
import type { DType } from "../../model/types";
import { type LinkedDs } from "../deepspeed/linked";
import { dsTable } from "../deepspeed/resolve";
import { simLayout, type EngineSpec } from "../common/engineView";
import { dt, noReduce, type PrecisionTable } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import type { LightningContext } from "./context";
import { explicitMixedPrecision, type Strategy } from "./strategy";
import { fsdpInitsFp32, type LightningVersion } from "./version";

export type LightningResolution = ReturnType<typeof resolve>;

/** The resolution of the context, with no gradient reduction on one device. */
export function resolveLightning(ctx: LightningContext): LightningResolution {
  const r = resolve(ctx.runs, ctx.valid, ctx.st, ctx.ds, ctx.worldSize?.value, ctx.lv);
  if (r.table && ctx.worldSize?.value === 1) r.table.R = noReduce();
  return r;
}

function resolve(precision: string, valid: boolean, st: Strategy, ds: LinkedDs | undefined, W: number | undefined, lv: LightningVersion): { layoutName: string; parallel?: ParallelLayout; mechanism: Mechanism; meaning: string; table?: PrecisionTable; notes: string[] } {
  const notes: string[] = [];
  const low: DType | undefined = precision.startsWith("bf16") ? "bfloat16" : precision.startsWith("16") ? "float16" : undefined;
  const lowName = low === "bfloat16" ? "bf16" : "fp16";
  const full: DType = precision === "64-true" ? "float64" : "float32";
  const name = st.derived
    ? st.family === "fsdp" ? "FSDP (LitGPT)" : st.family === "model_parallel" ? "FSDP2 (LitGPT LoRA, ModelParallelStrategy)" : st.family === "ddp" ? "DDP (LitGPT)" : "single device"
    : st.family === "fsdp" ? "FSDP" : st.family === "deepspeed" ? `DeepSpeed${st.stage !== undefined ? ` ZeRO-${st.stage}` : ""}` : st.family === "model_parallel" ? "ModelParallel (FSDP2+TP)" : st.family === "ddp" ? `DDP (${st.name})` : st.family === "xla" ? "XLA" : W && W > 1 ? "DDP (auto)" : "single device";
  const sharded = st.family === "fsdp" || (st.family === "model_parallel" && st.derived) || (st.family === "deepspeed" && st.stage === 3);
  const parallel = W ? layout(sharded ? { dp_shard: W } : { dp_replicate: W }) : undefined;
  const base = { layoutName: name, ...(parallel ? { parallel } : {}), notes };
  if (st.derived) notes.push(`Strategy: ${st.name} (LitGPT chooses it from \`devices\` × \`num_nodes\`${st.entry ? " and the script's `strategy` argument" : "; the config has no strategy key"}).`);
  if (!valid) return { ...base, mechanism: "error", meaning: "Lightning rejects the `precision` value before training." };
  if (st.family === "deepspeed") {
    if (ds) {
      const req = low === "bfloat16" ? "bf16" : low === "float16" ? "fp16" : undefined;
      // Lightning injects the block only when the DS config has none: treat the request like accelerate's fill.
      const f = { ...ds.facts };
      if (req === "bf16" && f.bf16Enabled === undefined) f.bf16Enabled = true;
      if (req === "fp16" && f.fp16Enabled === undefined) f.fp16Enabled = true;
      if (f.bf16Enabled === true) f.mode = "bf16";
      else if (f.fp16Enabled === true) f.mode = "fp16";
      // Lightning fills no "auto": with a 32-bit precision DeepSpeed drops it and runs fp32.
      const r = dsTable(f, req ?? "fp32");
      notes.push("Precision from the DeepSpeed strategy's config file (Lightning adds an fp16/bf16 block only when the file has none).");
      return { ...base, mechanism: r.mechanism, meaning: r.meaning, table: r.table };
    }
    if (!low) return { ...base, mechanism: "none", meaning: "DeepSpeed without a 16-bit mode: fp32.", table: all(full, `\`precision: ${precision}\``) };
    return {
      ...base,
      mechanism: "none",
      meaning: `Lightning adds \`${lowName}: {enabled: true}\` to the DeepSpeed config; DeepSpeed casts the module and keeps fp32 master weights; gradients reduced in ${lowName}.`,
      table: { P: dt("float32", "DeepSpeed ZeRO master weights"), C: dt(low, `\`precision: ${precision}\` → DeepSpeed`), G: dt(low, "DeepSpeed"), R: dt(low, "DeepSpeed (no `communication_data_type`)"), O: dt("float32", "DeepSpeed optimizer") },
    };
  }
  if (precision.startsWith("transformer-engine")) {
    const w: DType = precision.endsWith("float16") ? "float16" : "bfloat16";
    return { ...base, mechanism: "none", meaning: `TransformerEngine: ${w === "float16" ? "fp16" : "bf16"} weights, fp8 matmuls in TE layers.`, table: { P: dt(w, "`transformer-engine`"), C: dt("float8_e4m3fn", "TE layers (fp8)"), G: dt(w, "`transformer-engine`"), R: dt(w, "`transformer-engine`"), O: dt(w, "`transformer-engine`") } };
  }
  if (precision.endsWith("-true")) {
    if (!low) return { ...base, mechanism: "none", meaning: `everything in ${full === "float64" ? "fp64" : "fp32"}.`, table: all(full, `\`precision: ${precision}\``) };
    return {
      ...base,
      mechanism: "none",
      meaning: `**pure ${lowName}**: the module is cast to ${lowName}; no autocast, no fp32 master copy${low === "float16" ? ", no loss scaling" : ""}.`,
      table: all(low, `\`precision: ${precision}\` (module cast)`),
    };
  }
  // -mixed
  const src = `\`precision: ${precision}\``;
  const mp = explicitMixedPrecision(st);
  if (st.family === "fsdp" && mp && !st.derived) {
    // torch MixedPrecision: reduce_dtype None takes param_dtype; param_dtype None keeps the parameters'
    // dtype (fp32). Lightning's FSDPPrecision still autocasts the forward in the `precision` dtype.
    const P = mp.param ?? "float32";
    const R = mp.reduce ?? mp.param ?? "float32";
    const mpSrc = "`strategy.init_args.mixed_precision`";
    notes.push(`FSDP mixed precision from ${mpSrc} (it replaces the policy Lightning derives from ${src}).`);
    return {
      ...base,
      mechanism: "fully_shard",
      meaning: `fp32 parameters, ${P === "float32" ? lowName : P === "bfloat16" ? "bf16" : "fp16"} compute, gradient reduction in ${R === "float32" ? "fp32" : R === "bfloat16" ? "bf16" : "fp16"} (from ${mpSrc}).`,
      table: { P: dt("float32", "sharded fp32 parameters"), C: dt(P === "float32" ? low! : P, `${mp.param ? `MixedPrecision param_dtype (${mpSrc})` : `autocast (${src})`}`), G: dt("float32", "sharded fp32 gradients"), R: dt(R, `MixedPrecision reduce_dtype (${mpSrc})`), O: dt("float32", "optimizer over fp32 parameters") },
    };
  }
  if (st.family === "fsdp") {
    const lowInit = st.derived && fsdpInitsFp32(lv) === false;
    if (!st.derived) notes.push(`Parameters are fp32 when the model is built in fp32; ${fsdpInitsFp32(lv) === false ? `with ${lv.detail}, ` : "before Lightning 2.6.4, "}modules created in \`configure_model\` or under \`trainer.init_module()\` were built in ${lowName} (Lightning-AI/pytorch-lightning#21556, fixed in 2.6.4).`);
    return {
      ...base,
      mechanism: "fully_shard",
      meaning: lowInit ? `**${lowName} parameters** (LitGPT builds the model under \`fabric.init_module()\`, which used the policy's dtype before Lightning 2.6.4; ${lv.detail}), ${lowName} compute and ${lowName} gradient reduction.` : `fp32 parameters, ${lowName} compute through FSDP MixedPrecision plus autocast, and **${lowName} gradient reduction** (reduce_dtype = buffer_dtype = ${lowName}).`,
      table: fsdpMixedTable(low!, src, st, lv),
    };
  }
  if (st.family === "model_parallel" && st.derived) {
    return { ...base, mechanism: "autocast", meaning: `${lowName} autocast; LitGPT's \`fully_shard\` has no mixed-precision policy, so parameters, gradients, their reduction and optimizer state stay fp32.`, table: { P: dt("float32", "fully_shard without mp_policy (LitGPT parallelize_fn)"), C: dt(low!, `autocast (${src})`), G: dt("float32", "gradients of fp32 parameters"), R: dt("float32", "fully_shard reduces in the parameter dtype"), O: dt("float32", "optimizer over fp32 parameters") } };
  }
  if (st.family === "model_parallel") {
    notes.push("ModelParallelStrategy does not set a MixedPrecisionPolicy: the dtypes of the sharded parameters and the reduction are whatever `fully_shard(mp_policy=...)` in `configure_model` sets.");
    return { ...base, mechanism: "autocast", meaning: `${lowName} autocast; parameter and reduction dtypes come from your own \`fully_shard\` policy.`, table: { P: dt("float32", "user's configure_model (fp32 unless cast)"), C: dt(low!, `autocast (${src})`), G: dt("float32", "user's policy"), R: dt("float32", "user's mp_policy (fp32 unless set)"), O: dt("float32", "optimizer over the parameters") } };
  }
  return {
    ...base,
    mechanism: "autocast",
    meaning: `${lowName} autocast around forward; parameters, gradients and optimizer state stay fp32${low === "float16" ? "; GradScaler" : ""}.`,
    table: { P: dt("float32", "parameters stay fp32"), C: dt(low!, `autocast (${src})`), G: dt("float32", "gradients of fp32 parameters"), R: dt(W === 1 || !W ? "float32" : "float32", "DDP reduces in the gradient dtype"), O: dt("float32", "optimizer over fp32 parameters") },
  };
}

/** The engine's view of a Lightning run (see engineView.ts for what is modelled). */
export function engineSpecFor(precision: string, st: Strategy, parallel: ParallelLayout | undefined, W: number | undefined, storedAs?: string): EngineSpec | undefined {
  if (st.family === "deepspeed" || st.family === "model_parallel" || st.family === "xla" || precision.startsWith("transformer-engine") || precision === "64-true") return undefined;
  const low: DType = precision.startsWith("bf16") ? "bfloat16" : precision.startsWith("16") ? "float16" : "float32";
  const multi = (W ?? 1) > 1;
  if (st.family === "fsdp") {
    const l = simLayout(parallel, true, false);
    const mp = st.derived ? undefined : explicitMixedPrecision(st);
    if (mp && precision.endsWith("-mixed")) return { mechanism: "fully_shard", layout: l, ddp: false, param: mp.param ?? low, reduce: mp.reduce ?? mp.param ?? "float32", storage: "float32" };
    // LitGPT on a Lightning before 2.6.4 builds the parameters in the policy dtype (see fsdpMixedTable).
    if (precision.endsWith("-mixed")) return { mechanism: "fully_shard", layout: l, ddp: false, param: low, reduce: low, storage: storedAs === low ? low : "float32" };
    return { mechanism: "fully_shard", layout: l, ddp: false, param: low, reduce: low, storage: low };
  }
  const l = simLayout(parallel, false, multi);
  if (precision.endsWith("-mixed")) return { mechanism: "autocast", layout: l, ddp: multi, param: low, reduce: "float32", storage: "float32" };
  return { mechanism: "none", layout: l, ddp: multi, param: low, reduce: low, storage: low };
}

/**
 * FSDPStrategy with a `-mixed` precision. Parameters are fp32, except for LitGPT (which builds the model under
 * `fabric.init_module()`) on a Lightning before 2.6.4, where that context used the policy's dtype (see
 * lightningVersion.ts). Unpinned, the newest Lightning is assumed and the row says so.
 */
function fsdpMixedTable(low: DType, src: string, st: Strategy, lv: LightningVersion): PrecisionTable {
  const fp32Init = fsdpInitsFp32(lv);
  const P = st.derived && fp32Init === false ? dt(low, `FSDPPrecision.module_init_context under \`fabric.init_module()\` (${lv.detail}; fp32 from 2.6.4)`) : dt("float32", `FSDPPrecision (fp32 init${st.derived ? `; ${lv.detail}; before 2.6.4 LitGPT's parameters were ${low === "bfloat16" ? "bf16" : "fp16"}` : ""})`);
  const lowParams = P.dtype === low;
  return { P, C: dt(low, `MixedPrecision param_dtype (${src})`), G: dt(lowParams ? low : "float32", lowParams ? "gradients of the low-precision parameters" : "sharded fp32 gradients"), R: dt(low, `MixedPrecision reduce_dtype (${src})`), O: dt(lowParams ? low : "float32", `optimizer over ${lowParams ? "the low-precision" : "fp32"} parameters`) };
}

function all(dtype: DType, from: string): PrecisionTable {
  return { P: dt(dtype, from), C: dt(dtype, from), G: dt(dtype, from), R: dt(dtype, from), O: dt(dtype, from) };
}

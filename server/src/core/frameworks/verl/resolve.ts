/**
 * verl resolution into the shared precision model: the actor's table (the policy being trained), the other
 * roles as notes. Under `strategy: fsdp|fsdp2` the worker loads the model in `fsdp_config.model_dtype` and
 * wraps it with an FSDP mixed-precision policy (`MixedPrecision` / `MixedPrecisionPolicy`): parameters and
 * the optimizer's state stay in the model dtype, forward/backward run in `param_dtype` (autocast to it, or
 * to bf16 where the version hard-codes it), gradients are reduced in `reduce_dtype`
 * (`workers/engine/fsdp/transformer_impl.py` `_build_module` / `_build_fsdp_module` at verl 0.9.1;
 * `workers/fsdp_workers.py` at 0.7.1). Under `strategy: megatron` the Megatron-Core model is built in
 * `megatron.dtype` (bf16 or fp16: `params_dtype`, `bf16`/`fp16` in the transformer config), wrapped in
 * Megatron-Core's DDP with `grad_reduce_in_fp32: True` unless `override_ddp_config` says otherwise
 * (`utils/megatron_utils.py` `make_megatron_module` at 0.7.1 and 0.9.1), and optimized by Megatron-Core's
 * mixed-precision optimizer (`bf16`/`fp16` from the dtype: `utils/megatron/optimizer.py`
 * `init_megatron_optim_config`), which keeps fp32 main parameters and fp32 Adam states.
 */
import { short, dt, noReduce, type PrecisionTable } from "../common/precisionTable";
import { simLayout, type EngineSpec } from "../common/engineView";
import type { DType } from "../../model/types";
import { dtypeOf, type Role, type VerlContext, type VerlValue } from "./context";
import { VERL_MEGATRON_DTYPES } from "./data";

/** A Megatron role's params dtype: `megatron.dtype` when it is a spelling McoreEngineConfig accepts. */
export function megatronDtype(r: Role): DType | undefined {
  const v = r.megatronDtype?.value;
  return v === undefined || v === null ? undefined : VERL_MEGATRON_DTYPES[String(v)];
}

function megatronTable(ctx: VerlContext, r: Role): PrecisionTable {
  const W = ctx.worldSize?.value;
  const p = megatronDtype(r) ?? "unknown";
  const g = r.megatronGradFp32?.value === false ? { dtype: p, from: said("override_ddp_config.grad_reduce_in_fp32", r.megatronGradFp32) } : { dtype: "float32", from: r.megatronGradFp32 ? said("override_ddp_config.grad_reduce_in_fp32", r.megatronGradFp32) : "verl's Megatron DDP config: grad_reduce_in_fp32 True" };
  return {
    P: dt(p, `${said("megatron.dtype", r.megatronDtype)}: Megatron-Core's params_dtype`),
    C: dt(p, `${said("megatron.dtype", r.megatronDtype)}: the transformer config's ${p === "float16" ? "fp16" : p === "bfloat16" ? "bf16" : "dtype"}`),
    G: dt(g.dtype, `main gradients accumulate in the DDP buffer: ${g.from}`),
    R: W === 1 ? noReduce() : dt(g.dtype, g.from),
    O: dt("float32", `Megatron-Core's mixed-precision optimizer keeps fp32 main parameters and ${String(r.optimizer?.value ?? "Adam")} states`),
  };
}

export interface VerlResolution {
  layoutName: string;
  table: PrecisionTable | undefined;
  notes: string[];
  engineSpec: EngineSpec | undefined;
  /** FSDP's policy for the FSDP workers; "none" for the Megatron workers (their table says how), as megatron/ does. */
  mechanism: "fully_shard" | "none";
}

const said = (key: string, v: VerlValue | undefined): string => (v ? `\`${key}: ${v.value === undefined ? "unknown" : String(v.value)}\` (${v.where})` : `\`${key}\``);

/** What the role's forward autocasts to, and why. */
export function forwardDtype(ctx: VerlContext, r: Role): { dtype: DType | undefined; from: string; hardCoded: boolean } {
  const p = paramDtype(ctx, r);
  // verl ≤ 0.7: the new engine (trainer.use_legacy_worker_impl=disable) and the legacy critic autocast to bf16.
  if (hardCodesBf16(ctx, r)) return { dtype: "bfloat16", from: `torch.autocast(bfloat16), hard-coded in ${ctx.workers === "engine" ? "the FSDP engine's forward_step" : "dp_critic"} at verl ${ctx.version.version}`, hardCoded: true };
  return { dtype: p.dtype, from: p.from, hardCoded: false };
}

export function hardCodesBf16(ctx: VerlContext, r: Role): boolean {
  if (ctx.workers === "engine") return !versionFixed(ctx);
  return r.name === "critic";
}

export function versionFixed(ctx: VerlContext): boolean {
  const [a, b] = ctx.version.version.split(".").map((x) => Number.parseInt(x, 10) || 0);
  return (a ?? 0) > 0 || (b ?? 0) >= 8;
}

/** The FSDP policy's param dtype: `mixed_precision.param_dtype`, else the worker's default. */
export function paramDtype(ctx: VerlContext, r: Role): { dtype: DType | undefined; from: string } {
  if (r.paramDtype) return { dtype: dtypeOf(r.paramDtype), from: said("mixed_precision.param_dtype", r.paramDtype) };
  if (ctx.workers === "legacy" && r.name !== "critic") return { dtype: dtypeOf(r.legacyDtype) ?? "bfloat16", from: `no \`mixed_precision\`: the legacy worker uses ${said("fsdp_config.dtype", r.legacyDtype)}` };
  return { dtype: "bfloat16", from: "no `mixed_precision`: the worker's default param_dtype bf16" };
}

export function reduceDtype(r: Role): { dtype: DType | undefined; from: string } {
  if (r.reduceDtype) return { dtype: dtypeOf(r.reduceDtype), from: said("mixed_precision.reduce_dtype", r.reduceDtype) };
  return { dtype: "float32", from: "the worker's default reduce_dtype fp32" };
}

const fsdp = (r: Role) => r.strategy.value === "fsdp" || r.strategy.value === "fsdp2";

export function resolveVerl(ctx: VerlContext): VerlResolution {
  const actor = ctx.roles.find((r) => r.name === "actor")!;
  const notes: string[] = [];
  const W = ctx.worldSize?.value;
  let table: PrecisionTable | undefined;
  let engineSpec: EngineSpec | undefined;
  const strategy = actor.strategy.value;
  const layoutName = fsdp(actor) ? `actor ${strategy === "fsdp2" ? "FSDP2" : "FSDP"}` : strategy === "megatron" ? "actor Megatron" : `actor strategy ${String(strategy ?? "unknown")}`;
  if (fsdp(actor)) {
    const storage = dtypeOf(actor.modelDtype);
    const fwd = forwardDtype(ctx, actor);
    const red = reduceDtype(actor);
    const opt = String(actor.optimizer?.value ?? "AdamW");
    const storageText = storage ?? "unknown";
    table = {
      P: dt(storageText, `${said("fsdp_config.model_dtype", actor.modelDtype)}: the model is loaded and sharded in it`),
      C: dt(fwd.dtype ?? "unknown", fwd.from),
      G: dt(storageText, "gradients are kept in the parameters' dtype"),
      R: W === 1 ? noReduce() : dt(red.dtype ?? "unknown", red.from),
      O: dt(storageText, `${opt} states follow the parameters (${said("fsdp_config.model_dtype", actor.modelDtype)})`),
    };
    const param = fwd.dtype;
    if (storage && param && red.dtype) engineSpec = { mechanism: "fully_shard", layout: simLayout(undefined, true, false), ddp: false, param, reduce: red.dtype, storage, settingNames: { storage: "fsdp_config.model_dtype", param: "mixed_precision.param_dtype" } };
  } else if (strategy === "megatron") {
    table = megatronTable(ctx, actor);
  } else notes.push(`\`actor.strategy: ${String(strategy)}\`: Precision Lens models verl's FSDP and Megatron workers only; this strategy's dtypes are not resolved here.`);
  for (const r of ctx.roles) {
    if (r.name === "actor") continue;
    if (r.strategy.value === "megatron") {
      const t = megatronTable(ctx, r);
      notes.push(`${r.name === "ref" ? "Reference policy (forward only, no optimizer)" : "Critic"} on Megatron: parameters and compute ${short(megatronDtype(r) ?? "unknown")} (${said("megatron.dtype", r.megatronDtype)})${r.trains ? `, gradients reduced in ${short(t.R.dtype)}, fp32 main parameters and optimizer states` : ""}.`);
      continue;
    }
    if (!fsdp(r)) {
      notes.push(`${r.name}: strategy ${String(r.strategy.value ?? "unknown")} (not modelled).`);
      continue;
    }
    const fwd = forwardDtype(ctx, r);
    notes.push(`${r.name === "ref" ? "Reference policy (forward only, no optimizer)" : "Critic"}: parameters ${short(dtypeOf(r.modelDtype) ?? "unknown")} (${said("model_dtype", r.modelDtype)}), compute ${short(fwd.dtype ?? "unknown")} (${fwd.from})${r.trains ? `, reduction ${short(reduceDtype(r).dtype ?? "unknown")}, ${String(r.optimizer?.value ?? "AdamW")} states ${short(dtypeOf(r.modelDtype) ?? "unknown")}` : ""}.`);
  }
  notes.push(`Rollout (${String(ctx.rollout.name.value ?? "unknown")}): weights synced from the actor and served in ${said("rollout.dtype", ctx.rollout.dtype)}${ctx.rollout.tp.value !== undefined ? `, tensor parallel ${String(ctx.rollout.tp.value)}` : ""}.`);
  const kind = strategy === "megatron" ? "megatron" : "fsdp";
  notes.push(`Workers: ${ctx.workers === "legacy" ? `the legacy \`${kind}_workers.py\` (verl ≤ 0.7 with \`trainer.use_legacy_worker_impl\` auto/enable)` : `the ${kind === "megatron" ? "Megatron" : "FSDP"} engine (\`workers/engine/${kind}\`)`}; config: ${ctx.base}.`);
  notes.push(...ctx.notes);
  return { layoutName, table, notes, engineSpec, mechanism: table && fsdp(actor) ? "fully_shard" : "none" };
}

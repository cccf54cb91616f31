/**
 * accelerate resolution into the shared precision model, per `distributed_type` × `mixed_precision`
 * (spec other-frameworks.md §2.3), with the linked DeepSpeed file (§2.4) and `parallelism_config`.
 */
import { unreadLink } from "../common/linkedFiles";
import type { Mechanism, ParallelLayout, Sourced } from "../../analysis";
import { simLayout, type EngineSpec } from "../common/engineView";
import { dt, launcherRow, noReduce, type PrecisionTable } from "../common/precisionTable";
import { type FrameworkLayout, layout } from "../common/resolvedLayout";
import type { LinkedDs } from "../deepspeed/linked";
import { dsTable } from "../deepspeed/resolve";
import type { AccelerateContext, Par } from "./context";

/** The resolution of the context, with no gradient reduction in one process. */
export function resolveAccelerate(ctx: AccelerateContext): Resolution {
  const r = resolve(ctx, ctx.ds, ctx.worldSize, ctx.par);
  if (r.table && (ctx.worldSize?.value === 1 || ctx.distType === "NO")) r.table.R = noReduce(ctx.distType === "NO" ? "`distributed_type: NO`: one process, no gradient reduction" : "one process: no gradient reduction");
  return r;
}

export interface Resolution {
  layoutName: string;
  parallel?: ParallelLayout;
  mechanism: Mechanism;
  meaning: string;
  table?: PrecisionTable;
  notes: string[];
  assumptions: string[];
  engine?: EngineSpec;
  /** Who sets the precision when this file does not (a DeepSpeed `"auto"`). */
  setBy?: string;
}

function resolve(a: AccelerateContext, ds: LinkedDs | undefined, worldSize: Sourced<number> | undefined, par: Par): Resolution {
  const W = worldSize?.value;
  const notes: string[] = [];
  const assumptions: string[] = [];
  const m = a.mixed ?? "no";
  const t = a.distType ?? "NO";
  if (a.broken) {
    return { layoutName: t === "NO" ? "single device" : t, mechanism: "error", meaning: "accelerate cannot load this config (see the errors on `mixed_precision` / `distributed_type`).", notes, assumptions };
  }
  if (t === "DEEPSPEED") {
    const stage = a.v.int("deepspeed_config", "zero_stage");
    const sp = par.explicit ? par.sizes.sp_size! : 1;
    const name = `${ds ? `DeepSpeed ZeRO-${typeof ds.facts.stage === "number" ? ds.facts.stage : "auto"}` : `DeepSpeed${stage !== undefined ? ` ZeRO-${stage}` : ""}`}${sp > 1 ? " + SP (Ulysses)" : ""}`;
    const zero3 = (ds ? ds.facts.stage : stage) === 3;
    const parallel = par.explicit ? parallelFromSizes(par) : W ? layout(zero3 ? { dp_shard: W } : { dp_replicate: W }) : undefined;
    notes.push("accelerate's own autocast is off under DeepSpeed; DeepSpeed casts the model and keeps fp32 master weights.");
    if (ds) {
      const req = m === "fp16" ? "fp16" : m === "bf16" || m === "fp8" ? "bf16" : undefined;
      const r = dsTable(ds.facts, req);
      notes.push(`Precision read from the DeepSpeed file ${a.v.str("deepspeed_config", "deepspeed_config_file")}.`);
      // "auto" with no `mixed_precision` here (key-belongs-in-deepspeed-file forbids it next to a config file): the launch command decides.
      const setBy = r.setBy ? "`accelerate launch --mixed_precision` (default no, which leaves DeepSpeed in fp32)" : undefined;
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: r.mechanism, meaning: setBy ? `precision is \`"auto"\` in the DeepSpeed file and this config sets no \`mixed_precision\`, so ${setBy} decides; DeepSpeed keeps fp32 master weights in every mode.` : r.meaning, table: r.table, notes, assumptions, ...(setBy ? { setBy } : {}) };
    }
    const missingFile = a.v.str("deepspeed_config", "deepspeed_config_file");
    if (missingFile) {
      // The precision lives in a file that is not there: DeepSpeed keeps fp32 master weights in every mode.
      const u = unreadLink(a.env, missingFile);
      const setBy = `the DeepSpeed config file \`${u.name}\` (${u.short})`;
      const open = launcherRow(`${setBy}`);
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: `the precision is in ${setBy}; whatever it sets, DeepSpeed keeps fp32 master weights and fp32 optimizer state in the ZeRO optimizer.`, table: { P: dt("float32", "DeepSpeed ZeRO master weights (fp32 in every mode)"), C: open, G: open, R: open, O: dt("float32", "DeepSpeed optimizer (fp32 states in every mode)") }, notes, assumptions, setBy };
    }
    const low = m === "fp16" ? "float16" : m === "bf16" || m === "fp8" ? "bfloat16" : undefined;
    if (!low) return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "no mixed precision: DeepSpeed runs fp32 (or what the DeepSpeed file sets).", table: all("float32", "no `mixed_precision`"), notes, assumptions };
    return {
      layoutName: name,
      ...(parallel ? { parallel } : {}),
      mechanism: "none",
      meaning: `accelerate adds \`${m === "fp16" ? "fp16" : "bf16"}: {enabled: true}\` to the DeepSpeed config; DeepSpeed casts the module and keeps fp32 master weights; gradients reduced in ${m === "fp16" ? "fp16" : "bf16"}.`,
      table: { P: dt("float32", "DeepSpeed ZeRO master weights"), C: dt(low, "`mixed_precision` → DeepSpeed"), G: dt(low, "DeepSpeed"), R: dt(low, "DeepSpeed (no `communication_data_type`)"), O: dt("float32", "DeepSpeed optimizer") },
      notes,
      assumptions,
    };
  }
  const low = m === "fp16" ? "float16" : "bfloat16";
  if (t === "FSDP") {
    const s = par.sizes;
    let parallel: ParallelLayout | undefined;
    let name = `FSDP${a.fsdpVersion}`;
    if (par.explicit) {
      parallel = parallelFromSizes(par);
      const parts = [s.dp_replicate_size! > 1 && s.dp_shard_size! > 1 ? "HSDP" : s.dp_shard_size! > 1 ? `FSDP${a.fsdpVersion}` : s.dp_replicate_size! > 1 ? "DDP" : "", s.tp_size! > 1 ? "TP" : "", s.cp_size! > 1 ? "CP" : "", s.sp_size! > 1 ? "SP" : ""].filter(Boolean);
      name = parts.join("+") || `FSDP${a.fsdpVersion}`;
    } else if (W) {
      const strat = (a.v.str("fsdp_config", "fsdp_sharding_strategy") ?? "").toUpperCase();
      parallel = strat === "NO_SHARD" ? layout({ dp_replicate: W }) : layout({ dp_shard: W });
      if (strat.startsWith("HYBRID")) name = `HSDP (FSDP1 ${strat})`;
    }
    if (m === "no") {
      const engine: EngineSpec = { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: "float32", reduce: "float32", storage: "float32" };
      return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "mixed_precision 'no': no casting policy; everything runs in the dtype the script loads the model in (bf16 load = pure bf16).", table: all("load dtype", "the model's load dtype (`torch_dtype=` in the script)"), notes, assumptions, engine };
    }
    if (a.fsdpVersion === 2) assumptions.push("`accelerate-fsdp2-upcast` — trainable low-precision parameters are upcast to fp32 before sharding (skipped when bitsandbytes 4-bit params are present; a silent no-op in accelerate 1.13.0 only).");
    return {
      layoutName: name,
      ...(parallel ? { parallel } : {}),
      mechanism: "fully_shard",
      meaning: `fp32 master weights, ${m === "fp16" ? "fp16" : "bf16"} compute through the FSDP policy plus autocast, and ${m === "fp16" ? "fp16" : "bf16"} gradient reduction (reduce dtype = mixed-precision dtype).${m === "fp8" ? " fp8 GEMMs run inside bf16." : ""}`,
      table: {
        P: dt("float32", "accelerate upcasts trainable parameters"),
        C: dt(low, `FSDP policy param_dtype = \`mixed_precision: ${m}\``),
        G: dt("float32", "sharded gradients cast back to the fp32 parameters"),
        R: dt(low, `FSDP policy reduce_dtype = \`mixed_precision: ${m}\``),
        O: dt("float32", "optimizer over fp32 parameters"),
      },
      notes: m === "fp16" ? ["fp16 uses a sharded GradScaler."] : notes,
      assumptions,
      ...(m === "fp8" ? {} : { engine: { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: low, reduce: low, storage: "float32" } as EngineSpec }),
    };
  }
  // Single device / DDP family.
  const single = t === "NO" || W === 1;
  const name = t === "NO" ? "single device" : t === "MEGATRON_LM" ? "Megatron-LM" : t === "XLA" ? "XLA" : `DDP (${t})`;
  const parallel = W ? layout({ dp_replicate: W }) : undefined;
  if (t === "MEGATRON_LM") {
    return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: `Megatron-LM decides the precision (\`mixed_precision: ${m}\` sets its fp16/bf16 arguments); not modelled here.`, notes, assumptions };
  }
  if (m === "no") {
    const engine: EngineSpec = { mechanism: "none", layout: parallel ?? layout({}), ddp: !single && !!W, param: "float32", reduce: "float32", storage: "float32" };
    return { layoutName: name, ...(parallel ? { parallel } : {}), mechanism: "none", meaning: "no mixed precision: everything runs in the dtype the script loads the model in (loading bf16 here means pure bf16).", table: all("load dtype", "the model's load dtype (`torch_dtype=` in the script)"), notes, assumptions, engine };
  }
  assumptions.push("`accelerate-load-fp32` — the script loads the model in fp32 (accelerate does not cast it outside FSDP); if it loads bf16, parameters, gradients and optimizer state are bf16.");

  return {
    layoutName: name,
    ...(parallel ? { parallel } : {}),
    mechanism: "autocast",
    meaning: `torch.autocast(${m === "fp16" ? "fp16" : "bf16"}) around forward; parameters stay in the load dtype (fp32 master only if the script loads fp32)${m === "fp16" ? "; GradScaler" : ""}${m === "fp8" ? "; fp8 GEMMs inside bf16 autocast" : ""}.`,
    table: {
      P: dt("load dtype", "the model's load dtype"),
      C: dt(low, `autocast(\`mixed_precision: ${m}\`)`),
      G: dt("load dtype", "gradients follow the parameters"),
      R: single ? noReduce("one process: no gradient reduction") : dt("load dtype", "DDP reduces in the gradient dtype"),
      O: dt("load dtype", "optimizer over the parameters"),
    },
    notes,
    assumptions,
    ...(m === "fp8" ? {} : { engine: { mechanism: "autocast", layout: simLayout(parallel, false, !single && t !== "NO"), ddp: !single && t !== "NO", param: low, reduce: "float32", storage: "float32" } as EngineSpec }),
  };
}

/** The layout `parallelism_config` spells out, with the sequence-parallel degree kept (ALST/Ulysses `sp_size`). */
function parallelFromSizes(par: Par): FrameworkLayout {
  const s = par.sizes;
  const l: FrameworkLayout = layout({ dp_replicate: s.dp_replicate_size!, dp_shard: s.dp_shard_size!, tp: s.tp_size!, cp: s.cp_size! });
  if (s.sp_size! > 1) l.sp = s.sp_size!;
  return l;
}

function all(dtype: string, from: string): PrecisionTable {
  return { P: dt(dtype, from), C: dt(dtype, from), G: dt(dtype, from), R: dt(dtype, from), O: dt(dtype, from) };
}


/**
 * Axolotl resolution into the shared precision model, per mode (spec other-frameworks.md §4.3, itself
 * inferred from the code paths): DeepSpeed (from the linked config), LoRA/QLoRA adapters, FSDP1, FSDP2 and
 * plain AMP.
 */
import { linkName } from "../../workspace/boundary";
import type { Mechanism, ParallelLayout, Sourced } from "../../analysis";
import type { DType } from "../../model/types";
import { type LinkedDs } from "../deepspeed/linked";
import { dsTable } from "../deepspeed/resolve";
import { simLayout, type EngineSpec } from "../common/engineView";
import { dt, noReduce, type PrecisionTable } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import type { View } from "../common/view";
import type { AxolotlContext } from "./context";
import { AXOLOTL_BUNDLED_VERSION } from "./dsConfigs";

export type AxolotlResolution = ReturnType<typeof resolveAxolotl>;

/** The resolution of the context: the mode's table, with no gradient reduction on one GPU. */
export function axolotlResolution(ctx: AxolotlContext): AxolotlResolution {
  const { v, fullFT, bf16, fp16, fsdpOn, fsdp2, ds, adapter, worldSize, sizes } = ctx;
  const r = resolveAxolotl(v, { fullFT, bf16, fp16, fsdpOn, fsdp2, ds, adapter }, worldSize, sizes);
  if (worldSize?.value === 1) r.table.R = noReduce();
  return r;
}

export interface Mode {
  fullFT: boolean;
  bf16: "auto" | boolean | "invalid";
  fp16: boolean;
  fsdpOn: boolean;
  fsdp2: boolean;
  ds: LinkedDs | undefined;
  adapter: string | undefined;
}

export function resolveAxolotl(v: View, m: Mode, worldSize: Sourced<number> | undefined, sizes: Record<string, number | undefined>): { layoutName: string; parallel?: ParallelLayout; mechanism: Mechanism; meaning: string; table: PrecisionTable; notes: string[]; assumptions: string[]; engine?: EngineSpec } {
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
    const source = m.ds.path.startsWith("the inline") ? m.ds.path : m.ds.missing === "bundled" ? `Axolotl's bundled ${m.ds.path} (its content at axolotl ${AXOLOTL_BUNDLED_VERSION}; the file itself was not found)` : m.ds.missing === "unknown" ? (m.ds.outside ? `a DeepSpeed file outside the workspace (${linkName(v.str("deepspeed") ?? "")}), which was not read: its stage and any explicit precision are unknown` : `a DeepSpeed file that was not found (${v.str("deepspeed")}): its stage and any explicit precision are unknown`) : `the DeepSpeed file ${v.str("deepspeed")}`;
    notes.push(`Precision from ${source}; \`"auto"\` values are filled from \`bf16\`/\`fp16\` by the HF Trainer.`);
    if (m.ds.missing === "bundled") assumptions.push(`\`axolotl-bundled-ds\` — a \`deepspeed:\` path ending in \`deepspeed_configs/<name>.json\` that is not found is Axolotl's bundled file of that name, as of ${AXOLOTL_BUNDLED_VERSION}.`);
    const parallel = W ? layout(stage === 3 ? { dp_shard: W } : { dp_replicate: W }) : undefined;
    const layoutName = m.ds.missing === "unknown" ? `DeepSpeed (config file ${m.ds.outside ? "outside the workspace" : "not found"})` : `DeepSpeed ZeRO-${typeof stage === "number" ? stage : "auto"}`;
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
  assumptions.push("`axolotl-no-upcast` — full fine-tune: the model is loaded in the AMP dtype and nothing upcasts it (Axolotl's FSDP2 patch of accelerate has no fp32 upcast) [inferred; not yet verified on a GPU].");
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

/** DeepSpeed resolution into the shared precision model, per ZeRO stage and mode (spec other-frameworks.md §5.3). */
import type { Mechanism, ParallelLayout } from "../../analysis";
import type { DType } from "../../model/types";
import type { DsMode } from "../common/deepspeedLinks";
import { dt, launcherRow, noReduce, type PrecisionTable } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import type { DeepSpeedContext } from "./context";
import { AUTO_FILLED_BY, DS_DTYPE } from "./data";
import { isNeox } from "./detect";
import type { DsFacts } from "./facts";

/** The precision table for a DS config (§5.3), with `requested` filling `"auto"` (HF Trainer/accelerate). */
export function dsTable(f: DsFacts, requested?: DsMode, requestedBy?: string): { table: PrecisionTable; mechanism: Mechanism; meaning: string; setBy?: string } {
  let mode = f.mode;
  let via = mode === "bf16" ? "`bf16.enabled`" : mode === "fp16" ? "`fp16.enabled`" : "no `fp16`/`bf16` block enabled";
  if (f.autoPrecision && requested && mode === "fp32") {
    if ((requested === "bf16" && f.bf16Enabled === "auto") || (requested === "fp16" && f.fp16Enabled === "auto")) {
      mode = requested;
      via = requestedBy ? `\`"auto"\` filled with ${requested} from ${requestedBy}` : `\`"auto"\` filled with ${requested} by the launching config`;
    }
  }
  const stage = typeof f.stage === "number" ? f.stage : 0;
  const stageText = f.stage === "auto" ? "ZeRO stage auto" : `ZeRO-${stage}`;
  if (mode === "fp32" && f.autoPrecision && !requested) return autoTable(f, stageText);
  // torch_autocast alone (no fp16/bf16 mode): parameters stay fp32. With a mode enabled, DeepSpeed still
  // casts the parameters to that mode first (engine.py `_configure_distributed_model`), so the mode wins.
  if (f.autocast && mode === "fp32") {
    const c = DS_DTYPE[f.autocast.dtype.replace(/^torch\./, "")] ?? "bfloat16";
    const comm = f.commDtype ? DS_DTYPE[f.commDtype] ?? "float32" : "float32";
    return {
      mechanism: "autocast",
      meaning: `DeepSpeed's torch_autocast: fp32 parameters, ${c} compute inside autocast (${stageText}).`,
      table: {
        P: dt("float32", "parameters stay fp32 under `torch_autocast`"),
        C: dt(c, "`torch_autocast.dtype`"),
        G: dt("float32", "gradients of fp32 parameters"),
        R: dt(comm, f.commDtype ? "`communication_data_type`" : "gradient dtype"),
        O: dt("float32", "optimizer over fp32 parameters"),
      },
    };
  }
  if (mode === "fp32") {
    const note = f.autoPrecision ? " (`\"auto\"` precision values are dropped when DeepSpeed runs standalone, so this is fp32 unless HF Trainer or accelerate fills them in)" : "";
    return {
      mechanism: "none",
      meaning: `no fp16/bf16 mode is enabled: everything in fp32${note}.`,
      table: { P: dt("float32", via), C: dt("float32", via), G: dt("float32", via), R: dt(f.commDtype ? DS_DTYPE[f.commDtype] ?? "float32" : "float32", f.commDtype ? "`communication_data_type`" : via), O: dt("float32", via) },
    };
  }
  const low: DType = mode === "bf16" ? "bfloat16" : "float16";
  const P: DType = mode === "bf16" && f.masterBf16 ? "bfloat16" : "float32";
  const O: DType = mode === "bf16" && f.optStatesBf16 ? "bfloat16" : "float32";
  const fp32Accum = f.gradAccumDtype && DS_DTYPE[f.gradAccumDtype] === "float32";
  const G: DType = fp32Accum ? "float32" : low;
  const R: DType = f.commDtype ? DS_DTYPE[f.commDtype] ?? low : low;
  const master =
    P === "float32"
      ? stage >= 1
        ? "fp32 master partitions in the ZeRO optimizer"
        : "fp32 master copy in the optimizer wrapper"
      : `\`bf16_master_weights_and_grads\`: no fp32 master copy, master weights and gradients in bf16, optimizer state in ${O === "bfloat16" ? "bf16 (`bf16_optimizer_states`)" : "fp32"}`;
  const autocastNote = f.autocast ? `; \`torch_autocast\` (${f.autocast.dtype.replace(/^torch\./, "")}) also runs, over parameters already cast to ${mode}` : "";
  return {
    mechanism: "none",
    meaning: `DeepSpeed casts the module to ${mode} (${via}); ${master}; gradients reduced in ${R === low ? mode : R} (${stageText})${autocastNote}.`,
    table: {
      P: dt(P, P === "float32" ? `${stageText} master weights` : "`bf16_master_weights_and_grads`"),
      C: dt(low, `module cast by ${via}${f.autocast ? " (torch_autocast on top)" : ""}`),
      G: dt(G, fp32Accum ? "`data_types.grad_accum_dtype`" : P === "bfloat16" ? "`bf16_master_weights_and_grads`" : `gradients of the ${mode} module (accumulated in ${mode})`),
      R: dt(R, `${f.commDtype ? "`communication_data_type`" : `${mode} mode (no \`communication_data_type\`)`}${f.compressedComm ? `, during the warm-up only: after \`freeze_step\`, ${f.compressedComm} exchanges 1-bit compressed momentum instead` : ""}`),
      O: dt(O, O === "float32" ? `${stageText} optimizer (fp32 states)` : "`bf16_optimizer_states`"),
    },
  };
}

/**
 * `"enabled": "auto"` with nobody known to fill it: the launcher decides. HF Trainer fills it from
 * `--bf16`/`--fp16`, accelerate from `mixed_precision`; standalone DeepSpeed drops it (fp32). Whatever is
 * picked, ZeRO keeps fp32 master weights and fp32 optimizer state, so only compute, gradients and the
 * reduction are open.
 */
function autoTable(f: DsFacts, stageText: string): { table: PrecisionTable; mechanism: Mechanism; meaning: string; setBy: string } {
  const open = "`\"enabled\": \"auto\"`: filled by the launcher";
  const comm = f.commDtype ? DS_DTYPE[f.commDtype] : undefined;
  return {
    mechanism: "none",
    setBy: AUTO_FILLED_BY,
    meaning: `precision is \`"auto"\`, so ${AUTO_FILLED_BY} sets it: bf16 or fp16 with fp32 master weights in the ZeRO optimizer (${stageText}), or fp32 when DeepSpeed runs standalone (it drops "auto" values).`,
    table: {
      P: dt("float32", `${stageText} master weights (fp32 in every mode)`),
      C: launcherRow(open),
      G: launcherRow(open),
      R: comm ? dt(comm, "`communication_data_type`") : launcherRow(`${open} (the enabled mode, unless \`communication_data_type\` is set)`),
      O: dt("float32", `${stageText} optimizer (fp32 states in every mode)`),
    },
  };
}

export function layoutName(stage: number | "auto" | undefined): string {
  if (stage === "auto") return "DeepSpeed (ZeRO stage auto)";
  if (!stage) return "DeepSpeed data parallel (no ZeRO)";
  return `DeepSpeed ZeRO-${stage}`;
}

export interface DeepSpeedResolution {
  layoutName: string;
  parallel: ParallelLayout | undefined;
  table: PrecisionTable;
  mechanism: Mechanism;
  meaning: string;
  setBy: string | undefined;
  notes: string[];
  assumptions: string[];
}

/** The resolution of a DeepSpeed file as analysed on its own (with what the referrers or a launcher say). */
export function resolveDeepSpeed(ctx: DeepSpeedContext): DeepSpeedResolution {
  const { v, f, referrers, requested, launcher, worldSize } = ctx;
  // A `deepspeed` launcher script running this file is standalone DeepSpeed: "auto" is dropped (fp32).
  const { table, mechanism, meaning, setBy } = dsTable(f, requested ?? (launcher ? "fp32" : undefined));
  if (worldSize?.value === 1) table.R = noReduce();
  const stage = typeof f.stage === "number" ? f.stage : 0;
  const ws = worldSize?.value;
  const parallel = ws ? layout(stage === 3 ? { dp_shard: ws } : { dp_replicate: ws }) : undefined;
  const name = layoutName(f.stage);
  const notes: string[] = [];
  if (f.offloadOptimizer) notes.push(`Optimizer state offloaded to ${f.offloadOptimizer}.`);
  if (f.offloadParam) notes.push(`Parameters offloaded to ${f.offloadParam}.`);
  if (isNeox(v)) notes.push("gpt-neox config: NeoX hands its DeepSpeed keys (`fp16`/`bf16`, `zero_optimization`, batch sizes) to DeepSpeed; its own keys (`pipe_parallel_size`, `model_parallel_size`, `te_*` Transformer Engine options, …) are not modelled here.");
  if (referrers.length) notes.push(`Used by: ${referrers.map((r) => `${r.relPath} (${r.framework})`).join(", ")}.`);
  const assumptions: string[] = [];
  // Only when nothing fills the "auto" in: a referring YAML that asks for a mode fills it (issue #34).
  if (f.autoPrecision && !requested) assumptions.push('`ds-auto-dropped` — standalone DeepSpeed drops `"auto"` values (DeepSpeedConfigModel filters them), so `"enabled": "auto"` means off unless HF Trainer/accelerate fills it in.');
  return { layoutName: name, parallel, table, mechanism, meaning, setBy, notes, assumptions };
}

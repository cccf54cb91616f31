/**
 * no-mixed-precision: The layout gets no mixed precision: compute, parameters and gradients stay fp32.
 *
 * The layout gets no mixed precision and compute ends up fp32 (the seed case:
 * TP-only or PP-only after `-1` resolution; in the pre-AMP eras every non-FSDP layout).
 */
import type { ParallelLayout } from "../../../analysis";
import { diag, fix } from "../../../diagnostics/build";
import { findEntry, stringValue } from "../../../model/document";
import { setKey } from "../../../edit/toml";
import type { DiagnosticData, Fix } from "../../../model/types";
import { defineLazy } from "../../../model/lazy";
import type { TitanContext, TitanRule } from "../context";
import { WARN_TP_PP } from "../eras";
import { KNOB_SPECS } from "../knobs";
import { dimsAnchor, setDim, worldSizePhrase } from "../locate";
import { decidedBy, gpus } from "../related";
import type { DimField } from "../parallelDims";
import { simulate } from "../../../engine/simulate";
import { GPUS } from "../../../engine/gpus";
import { formatBytes } from "../../../engine/dtypes";
import type { SimulationInput } from "../../../engine/types";
import { shapeOverride } from "./memory-exceeds-gpu";
import { assumption } from "../../../provenance";

export const noMixedPrecision: TitanRule = {
  codes: ["no-mixed-precision"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const d = ctx.dims.resolved;
    if (!d || ctx.decision.mechanism !== "none" || !ctx.precision) return [];
    if (ctx.precision.compute.dtype !== "float32") return []; // full bf16 on purpose (training.dtype)
    if (!ctx.knobs.param.isDefault && ctx.knobs.param.dtype === "float32") return []; // fp32 on purpose
    // The workspace's own maybe_enable_amp autocasts TP or PP without FSDP (workspace/forkCode.ts): not fp32 there.
    if (ctx.forkCode?.tpPpAutocast && (d.tp > 1 || d.pp > 1)) return [];
    const cause: DimField | undefined = d.tp > 1 ? "tp" : d.pp > 1 ? "pp" : undefined;
    const where = dimsAnchor(ctx, cause ? [cause, "dp_shard"] : ["dp_replicate", "dp_shard"]);
    const warned = ctx.decision.logs.some((l) => l.level === "warning");
    const shard = ctx.dims.dpShardInferred ? `data_parallel_shard_degree = -1 resolves to ${d.dp_shard}` : `data_parallel_shard_degree = ${d.dp_shard}`;
    const launchLog = warned ? ` At launch torchtitan only logs the warning "${WARN_TP_PP}"` : " torchtitan logs no warning about it in this version.";
    // MoE grouped GEMMs cast tokens and expert weights to bf16 whatever the policy (spec torchtitan.md §1.4).
    const moe = isMoeModel(ctx) ? " Only the routed experts of this MoE model still compute in bf16 (grouped_mm always casts to bf16)." : "";
    const long =
      `This is a ${ctx.layoutName} run on ${worldSizePhrase(ctx)}; ${shard} and cp = ${d.cp}, so FSDP is off and torchtitan ${ctx.version.value.id} applies no mixed precision (${ctx.decision.reason}). ` +
      `Compute, parameters and gradients are all float32 (mixed_precision_param = "${ctx.knobs.param.dtype ?? "?"}" is not applied).${moe}${launchLog}`;
    const shardShort = ctx.dims.dpShardInferred ? `dp_shard -1 → ${d.dp_shard}` : `dp_shard ${d.dp_shard}`;
    const experts = moe ? "routed experts still bf16; " : "";
    const body = `No mixed precision: ${ctx.layoutName} on ${gpus(ctx.worldSize.value)} trains in fp32 (${experts}${shardShort}, so no FSDP)`;
    // A world size inferred from the degrees (`dp_shard = -1` beside fixed degrees: the smallest world they fill)
    // decides that dp_shard resolves to 1: the finding leads with that assumption, as gated findings do (provenance.ts).
    const inferred = ctx.worldSize.kind === "inferred" && ctx.worldSize.source === "degrees";
    const message = inferred ? `Assuming ${assumption("worldSize", ctx.worldSize, true)}: ${body.charAt(0).toLowerCase()}${body.slice(1)}` : body;
    return [
      diag(
        "no-mixed-precision",
        "warning",
        where.range,
        message,
        // The fixes are a lazy value (issue #36): their memory estimates re-simulate the run twice, ~6% of a
        // CLI run over many TOMLs, and `check --format json|text` never prints them (code actions, SARIF and
        // --fix read them, and get the same fixes).
        defineLazy<DiagnosticData, "fixes">({ fixes: undefined, facts: { worldSize: ctx.worldSize.value, worldSizeSource: ctx.worldSize.source, layout: ctx.layoutName, ...(inferred ? { assumed: "worldSize" } : {}) } }, "fixes", () => seedFixes(ctx, d, cause)),
        { detail: inferred ? `Assuming ${assumption("worldSize", ctx.worldSize, true)}: ${long}` : long, related: decidedBy(ctx, { shard: true, worldSize: true, version: true }) },
      ),
    ];
  },
};

/**
 * The estimated reserved peak per GPU of a fix's run, and whether it is over the GPU's memory (issue #34: the
 * preferred fix for llama3_70b on 8 GPUs left 200 GiB per GPU on 80 GB cards). Undefined when the model or
 * the GPU is not known: the fix is then offered as before, with nothing said about memory.
 */
function fixMemory(ctx: TitanContext, input: SimulationInput | undefined): { over: boolean; text: string } | undefined {
  if (!input || shapeOverride(ctx.doc) || ctx.gpu.source === "default-contradicted") return undefined;
  const peak = simulate(input)?.memory.perGpuBytes?.reserved;
  const gpu = GPUS[ctx.gpu.value];
  if (peak === undefined || !gpu) return undefined;
  return peak > gpu.memoryBytes ? { over: true, text: ` — does not fit: ≈ ${formatBytes(peak)} per GPU, over the ${gpu.label}'s ${formatBytes(gpu.memoryBytes)} (estimate)` } : { over: false, text: "" };
}

function seedFixes(ctx: TitanContext, d: ParallelLayout, cause: DimField | undefined): Fix[] {
  // Candidates in order of preference; the first that fits the GPU (or whose memory is not known) is preferred.
  const candidates: { title: string; edits: Fix["edits"]; memory?: { over: boolean; text: string } }[] = [];
  const input = ctx.simulationInput;
  let layoutFix = false;
  if (cause) {
    const lowered = lowerToEnableFsdp(d, cause, ctx.worldSize.value);
    if (lowered) {
      const key = cause === "tp" ? "tensor_parallel_degree" : "pipeline_parallel_degree";
      const edits = setDim(ctx, cause, lowered.degree);
      // An explicit dp_shard must change too; -1 absorbs the freed ranks by itself.
      if (!ctx.dims.dpShardInferred) edits.push(...setDim(ctx, "dp_shard", lowered.dpShard));
      const layout: ParallelLayout = { ...d, [cause]: lowered.degree, dp_shard: lowered.dpShard };
      const memory = fixMemory(ctx, input && { ...input, mechanism: "fully_shard", ddp: false, layout, paramDtype: "bfloat16" });
      layoutFix = true;
      candidates.push({ title: `Lower ${key} to ${lowered.degree} so FSDP shards over ${lowered.dpShard} GPUs (bf16 mixed precision)`, edits, ...(memory ? { memory } : {}) });
    }
  }
  if (ctx.version.value.date >= (KNOB_SPECS.trainingDtype.since ?? "")) {
    const memory = fixMemory(ctx, input && { ...input, trainingDtype: "bfloat16", paramDtype: "bfloat16" });
    candidates.push({ title: 'Train fully in bf16: training.dtype = "bfloat16" (no fp32 master weights)', edits: setKey(ctx.doc, ["training"], "dtype", '"bfloat16"'), ...(memory ? { memory } : {}) });
  }
  // The layout fix is preferred when it fits; when it does not, the next one that fits is (never one over the
  // GPU's memory). Without a layout fix nothing is preferred, as before: full bf16 changes what is trained.
  const preferred = layoutFix ? candidates.findIndex((c) => !c.memory?.over) : -1;
  const fixes = candidates.map((c, i) => fix(`${c.title}${c.memory?.text ?? ""}`, c.edits, i === preferred));
  fixes.push(fix('Keep fp32 on purpose: mixed_precision_param = "float32" (silences this warning)', setKey(ctx.doc, ["training"], "mixed_precision_param", '"float32"')));
  return fixes;
}

/**
 * The largest degree below the current one that leaves dp_shard > 1 with every other degree unchanged,
 * or undefined when the world size admits none (e.g. tp = 8 on 8 GPUs → tp = 4, dp_shard = 2).
 */
export function lowerToEnableFsdp(d: ParallelLayout, field: DimField, worldSize: number): { degree: number; dpShard: number } | undefined {
  const rest = d.dp_replicate * d.cp * d.tp * d.pp / d[field];
  // v must divide m = worldSize / rest: search the divisors of m (O(sqrt m)), never count down from d[field].
  if (!Number.isSafeInteger(worldSize) || !Number.isSafeInteger(rest) || rest < 1 || worldSize % rest !== 0) return undefined;
  const m = worldSize / rest;
  let best: number | undefined;
  for (let a = 1; a * a <= m; a++) {
    if (m % a !== 0) continue;
    for (const v of [a, m / a]) if (v < d[field] && m / v > 1 && (best === undefined || v > best)) best = v;
  }
  return best === undefined ? undefined : { degree: best, dpShard: m / best };
}

/** Model families whose routed experts run through grouped_mm (llama4, deepseek_v3, gpt_oss, qwen3 MoE flavors). */
function isMoeModel(ctx: TitanContext): boolean {
  const name = ctx.modelName ?? "";
  if (/(^|\.)(llama4|deepseek_v3|gpt_oss)$/.test(name)) return true;
  const flavor = stringValue(findEntry(ctx.doc, "model", "flavor")) ?? "";
  return /(^|\.)qwen3$/.test(name) && /moe|-A\d+B$/i.test(flavor);
}

/**
 * torchtune recipe configs (spec other-frameworks.md §1): detection, the resolved layout and precision
 * (§1.3: always pure `dtype`, no autocast and no FSDP mixed-precision policy) and diagnostics TT1–TT12 (§1.5).
 */
import type { AnalysisEnv, AnalysisSettings, FrameworkAnalysis, FrameworkAnalyzer, ParallelLayout, Sourced } from "../../analysis";
import type { ConfigDocument } from "../../model";
import type { DType } from "../../types";
import { compilesOptimizerStep, torchtuneVersion } from "./version";
import { diagnostics, launchErrors, parseNoteDiagnostics } from "../common/diagnosticBuilder";
import { appendLine, deleteLines, fix, indentOf, insertLineAfter, replaceValue } from "../common/edits";
import { FORCED, hoversAt, precisionHint, summaryMarkdown } from "../common/precisionHover";
import { dt, noReduce, type PrecisionTable, toResolved } from "../common/precisionTable";
import { layout } from "../common/resolvedLayout";
import { View } from "../common/view";
import { looksBoolKey, yaml11Booleans } from "../common/yamlBooleans";
import { simLayout, withPerOp, type EngineSpec } from "../common/engineView";
import { pureBf16Risk } from "../../pureLowPrecision";

const DTYPES: Record<string, DType> = { bf16: "bfloat16", fp32: "float32", fp16: "float16", fp64: "float64" };
const DTYPE_MAP: Record<string, string> = { bfloat16: "bf16", "torch.bfloat16": "bf16", float32: "fp32", "torch.float32": "fp32", float: "fp32", float16: "fp16", half: "fp16", "torch.float16": "fp16", float64: "fp64", double: "fp64" };

export function detectTorchtune(doc: ConfigDocument): string | undefined {
  const comp = doc.entries.find((e) => e.path[e.path.length - 1] === "_component_" && e.value.kind === "string" && (e.value.value as string).startsWith("torchtune.") && !e.path[0]!.startsWith("(document"));
  if (comp) return `has \`${comp.path.join(".")}: ${comp.value.value as string}\` (a torchtune component)`;
  const v = new View(doc);
  const dtype = v.str("dtype");
  if (dtype && ["bf16", "fp32"].includes(dtype) && v.isSection("checkpointer") && v.isSection("tokenizer")) return "has a top-level `dtype` with `checkpointer` and `tokenizer` mappings (torchtune recipe config)";
  return undefined;
}

export const torchtuneAnalyzer: FrameworkAnalyzer = {
  id: "torchtune",
  formats: ["yaml"],
  detect: detectTorchtune,
  analyze: analyzeTorchtune,
};

interface Launch {
  recipe?: string;
  nproc?: number;
  nnodes?: number;
  line?: number;
}

/** `tune run [--nnodes N] [--nproc_per_node M] <recipe> --config ...` in the header comment. */
function launchFromComments(doc: ConfigDocument): Launch {
  for (const c of doc.comments) {
    const m = /tune\s+run\s+(.*)$/.exec(c.text);
    if (!m) continue;
    const args = m[1]!.split(/\s+/);
    const l: Launch = { line: c.line };
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const eq = /^--(nproc_per_node|nnodes)(?:=(\d+))?$/.exec(a);
      if (eq) {
        const n = Number(eq[2] ?? args[++i]);
        if (eq[1] === "nproc_per_node") l.nproc = n;
        else l.nnodes = n;
      } else if (!a.startsWith("-") && !l.recipe) l.recipe = a;
    }
    return l;
  }
  return {};
}

function analyzeTorchtune(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): FrameworkAnalysis {
  const v = new View(doc);
  const d = diagnostics("torchtune");
  parseNoteDiagnostics(doc, d);
  const launch = launchFromComments(doc);
  const fileName = (env.documentPath ?? doc.uri).split(/[\\/]/).pop() ?? "";
  const training = v.has("optimizer") || v.has("loss");
  const recipe = launch.recipe ?? "";
  const modelComp = v.str("model", "_component_") ?? "";
  const isLora = /(^|\.)(q?lora|dora)_/.test(modelComp) || /lora/.test(recipe);
  const singleDevice = recipe ? /single_device/.test(recipe) : /single_device/.test(fileName);
  const tpDim = v.int("tensor_parallel_dim") ?? 1;
  const cpDim = v.int("context_parallel_dim") ?? 1;
  const repDim = v.int("data_parallel_replicate_dim") ?? 1;
  const shardDim = v.int("data_parallel_shard_dim") ?? -1;
  const cpuOffload = v.bool("fsdp_cpu_offload") === true;
  const distributedKeys = ["tensor_parallel_dim", "data_parallel_shard_dim", "data_parallel_replicate_dim", "context_parallel_dim", "fsdp_cpu_offload"].some((k) => v.has(k));
  const distributed = !singleDevice && (distributedKeys || /_multinode/.test(fileName) || /distributed/.test(recipe) || (!recipe && !/single_device/.test(fileName)));

  // World size: setting, then `tune run --nproc_per_node N [--nnodes M]` in the header.
  let worldSize: Sourced<number> | undefined;
  if (settings.worldSize && settings.worldSize > 0) worldSize = { value: settings.worldSize, source: "setting", detail: "from the precisionLens.worldSize setting / --world-size" };
  else if (launch.nproc) worldSize = { value: launch.nproc * (launch.nnodes ?? 1), source: "header-comment", detail: `\`tune run --nproc_per_node ${launch.nproc}${launch.nnodes ? ` --nnodes ${launch.nnodes}` : ""}\` in the comment on line ${(launch.line ?? 0) + 1}` };
  else if (singleDevice) worldSize = { value: 1, source: "recipe", detail: `a single-device recipe (${recipe || fileName})` };

  // dtype: TT1, TT2.
  const dtypeEntry = v.entry("dtype");
  let dtypeName = v.str("dtype");
  let broken = false;
  if (dtypeEntry && dtypeName !== undefined && !(dtypeName in DTYPES)) {
    const to = DTYPE_MAP[dtypeName.toLowerCase()];
    broken = true;
    d.add("TT2", "error", dtypeEntry.value.range, `\`dtype: ${dtypeName}\` is not a torchtune dtype name: recipes raise ValueError "Dtype ${dtypeName} must be one of fp16, bf16, fp32, fp64 for finetuning".${to ? ` Use \`${to}\`.` : ""}`, to ? [fix(`Change to ${to}`, [replaceValue(dtypeEntry, to)], true)] : []);
    dtypeName = undefined;
  } else if (dtypeEntry && dtypeEntry.value.kind !== "string" && dtypeEntry.value.kind !== "null") {
    broken = true;
    d.add("TT2", "error", dtypeEntry.value.range, `\`dtype\` must be one of bf16, fp32 (fp16 and fp64 parse); got ${dtypeEntry.value.raw ?? String(dtypeEntry.value.value)}.`, [fix("Change to bf16", [replaceValue(dtypeEntry, "bf16")], true)]);
  }
  if (dtypeName === "fp16" && dtypeEntry) {
    if (training) {
      broken = true;
      d.add("TT1", "error", dtypeEntry.value.range, '`dtype: fp16` in a training config: every torchtune training recipe raises ValueError "full fp16 training is not supported with this recipe. Please use bf16 or fp32 instead".', [
        fix("Use bf16", [replaceValue(dtypeEntry, "bf16")], true),
        fix("Use fp32 (pre-Ampere GPUs)", [replaceValue(dtypeEntry, "fp32")]),
      ]);
    } else {
      d.add("TT1", "information", dtypeEntry.value.range, "`dtype: fp16` is accepted by the generation, evaluation and quantization recipes, but no torchtune training recipe supports it.");
    }
  }
  // TT3
  const lr = v.num("optimizer", "lr");
  if (dtypeName === "bf16" && dtypeEntry && training) {
    const epochs = v.int("epochs");
    const { long, why } = pureBf16Risk({ lr, epochs });
    d.add("TT3", long ? "warning" : "information", dtypeEntry.value.range, `\`dtype: bf16\` is pure bf16 in torchtune: weights, gradients and optimizer states are bf16${singleDevice || worldSize?.value === 1 ? " and there is no fp32 master copy" : ", there is no fp32 master copy, and gradients are reduced in bf16"}.${why} Use \`dtype: fp32\` if convergence suffers; torchtune has no fp32-master mixed precision.`, [fix("Use fp32 (full precision)", [replaceValue(dtypeEntry, "fp32")])]);
  }

  // TT4, TT5: optimizer_in_bwd.
  const oib = v.entry("optimizer_in_bwd");
  if (oib && oib.value.value === true) {
    const clip = v.entry("clip_grad_norm");
    const gas = v.entry("gradient_accumulation_steps");
    if (clip && clip.value.kind !== "null") {
      d.add("TT4", "error", clip.value.range, "`clip_grad_norm` is set while `optimizer_in_bwd: True`: the recipe raises RuntimeError (gradients are consumed during backward, so they cannot be clipped).", [fix("Set clip_grad_norm: null", [replaceValue(clip, "null")], true)]);
    }
    const g = v.int("gradient_accumulation_steps");
    if (gas && g !== undefined && g > 1) {
      d.add("TT4", "error", gas.value.range, `\`gradient_accumulation_steps: ${g}\` with \`optimizer_in_bwd: True\`: the recipe raises RuntimeError (the optimizer steps inside every backward).`, [fix("Set gradient_accumulation_steps: 1", [replaceValue(gas, "1")], true)]);
    }
    const compile = v.entry("compile");
    const fullOrQatDistributed = distributed && (!recipe || /full_finetune_distributed|qat_distributed/.test(recipe));
    const tv = torchtuneVersion(env);
    const compilesStep = compilesOptimizerStep(tv);
    if (compile && compile.value.value === true && fullOrQatDistributed && compilesStep !== false) {
      const ind = indentOf(doc, compile.range);
      const eol = doc.lines.eol;
      // Pinned ≥ 0.7.0: the launch fails (error). No pin: the newest torchtune is assumed, and said, as a
      // warning (torchtune 0.6.1 and older compile only the model and the loss, where this config runs).
      const msg = compilesStep
        ? `\`compile: True\` also compiles the optimizer step (${tv.detail}), which the distributed full/QAT recipes reject with \`optimizer_in_bwd: True\` (ValueError "optimizer_in_bwd not supported with compiling the optimizer step"). Compile the model and loss only.`
        : `${tv.detail[0]!.toUpperCase()}${tv.detail.slice(1)}: there \`compile: True\` also compiles the optimizer step, which the distributed full/QAT recipes reject with \`optimizer_in_bwd: True\` (ValueError "optimizer_in_bwd not supported with compiling the optimizer step"). torchtune 0.6.1 and older compile only the model and the loss, where this config runs. Compile the model and loss only to be safe with both.`;
      d.add("TT5", compilesStep ? "error" : "warning", compile.value.range, msg, [
        fix("Compile model and loss only", [{ range: { start: compile.keyRange.end, end: compile.value.range.end }, newText: `:${eol}${ind}  model: true${eol}${ind}  loss: true${eol}${ind}  optimizer_step: false` }], true),
      ]);
    }
  }
  // TT6
  const tpEntry = v.entry("tensor_parallel_dim");
  if (tpEntry && tpDim > 1) {
    if (!v.has("tensor_parallel_plan")) d.add("TT6", "error", tpEntry.value.range, `\`tensor_parallel_dim: ${tpDim}\` without a \`tensor_parallel_plan\`: the recipe raises ValueError. Add the model's plan (e.g. \`_component_: torchtune.models.llama3.base_llama_tp_plan\`) or set the dim to 1.`, [fix("Set tensor_parallel_dim: 1", [replaceValue(tpEntry, "1")], true)]);
    if (isLora) d.add("TT6", "error", tpEntry.value.range, `\`tensor_parallel_dim: ${tpDim}\` with a LoRA model: the LoRA distributed recipe asserts tensor parallelism is 1.`, [fix("Set tensor_parallel_dim: 1", [replaceValue(tpEntry, "1")], true)]);
  }
  // TT7
  const offload = v.entry("enable_activation_offloading");
  if (offload && offload.value.value === true && v.bool("enable_activation_checkpointing") !== true) {
    const ac = v.entry("enable_activation_checkpointing");
    d.add("TT7", "error", offload.value.range, `\`enable_activation_offloading: True\` needs activation checkpointing, which is ${ac ? "off" : "off by default"}: the recipe raises RuntimeError.`, [
      ac ? fix("Enable activation checkpointing", [replaceValue(ac, "True")], true) : fix("Enable activation checkpointing", [insertLineAfter(doc, offload.range, "enable_activation_checkpointing: True")], true),
    ]);
  }
  // TT8
  const optComp = v.entry("optimizer", "_component_");
  if (optComp && typeof optComp.value.value === "string" && (optComp.value.value as string).startsWith("bitsandbytes.") && distributed) {
    d.add("TT8", "warning", optComp.value.range, `\`${optComp.value.value as string}\` in a distributed config: bitsandbytes optimizers are documented for single-device recipes only, and paged AdamW fails under FSDP2 (meta-pytorch/torchtune#1856).`, [
      fix("Use torchao.prototype.low_bit_optim.AdamW8bit", [replaceValue(optComp, "torchao.prototype.low_bit_optim.AdamW8bit")], true),
    ]);
  }
  // TT9 [inferred]
  const repEntry = v.entry("data_parallel_replicate_dim");
  const shardEntry = v.entry("data_parallel_shard_dim");
  if (repEntry && repDim > 1 && shardDim === 1 && tpDim === 1 && cpDim === 1) {
    d.add("TT9", "information", repEntry.value.range, `[inferred] \`data_parallel_replicate_dim: ${repDim}\` with \`data_parallel_shard_dim: 1\` and no TP/CP: torchtune applies FSDP only when dp_shard > 1 or cp > 1 and has no DDP path, so the ${repDim} replicas would never synchronise their gradients.`, shardEntry ? [fix("Set data_parallel_shard_dim: -1", [replaceValue(shardEntry, "-1")], true)] : []);
  }
  // TT10
  const cpuOff = v.entry("fsdp_cpu_offload");
  if (cpuOff && cpuOff.value.value === true) {
    const fused = v.entry("optimizer", "fused");
    if (!fused || fused.value.value !== true) {
      const fixes = fused ? [fix("Set fused: True", [replaceValue(fused, "True")], true)] : optComp ? [fix("Add fused: True", [insertLineAfter(doc, optComp.range, "fused: True")], true)] : [];
      d.add("TT10", "information", cpuOff.value.range, "`fsdp_cpu_offload: True` runs the optimizer step on the CPU; with `optimizer.fused` " + (fused ? "False" : "unset") + " that step is slow. torchtune recommends `fused: True` for CPU offload.", fixes);
    }
  }
  // TT11
  if (v.has("fsdp", "cpu_offload")) {
    const e = v.entry("fsdp", "cpu_offload")!;
    const onlyChild = v.childKeys("fsdp").length === 1;
    const value = e.value.raw ?? String(e.value.value);
    const top = v.has("fsdp_cpu_offload");
    const edits = onlyChild
      ? [{ range: v.sectionRange("fsdp")!, newText: top ? "" : `fsdp_cpu_offload: ${value}` }]
      : [deleteLines(doc, e.range), ...(top ? [] : [appendLine(doc, `fsdp_cpu_offload: ${value}`)])];
    d.add("TT11", "warning", e.keyRange, "`fsdp.cpu_offload` is never read: torchtune recipes only read the top-level `fsdp_cpu_offload`, so this setting has no effect.", [fix("Move to top-level fsdp_cpu_offload", edits, true)]);
  }
  // TT12
  if (worldSize && worldSize.source !== "recipe" && shardDim !== -1 && v.has("data_parallel_shard_dim")) {
    const product = repDim * shardDim * tpDim * cpDim;
    if (product !== worldSize.value) {
      d.add("TT12", "error", shardEntry!.value.range, `The parallel dims multiply to ${product} (replicate ${repDim} × shard ${shardDim} × tp ${tpDim} × cp ${cpDim}) but the world size is ${worldSize.value} (${worldSize.detail}); torchtune asserts they are equal.`, [fix("Infer the shard dim (-1)", [replaceValue(shardEntry!, "-1")], true)]);
    }
  }
  yaml11Booleans(doc, d, () => false, looksBoolKey);

  // Resolution.
  const W = worldSize?.value;
  let parallel: ParallelLayout | undefined;
  let layoutName: string;
  if (!training) {
    layoutName = "generation / evaluation (no training)";
  } else if (singleDevice) {
    layoutName = "single device";
    parallel = layout({});
  } else {
    const shard = shardDim === -1 ? (W ? Math.max(1, Math.floor(W / (repDim * tpDim * cpDim))) : undefined) : shardDim;
    const parts: string[] = [];
    if (shard !== undefined && shard > 1 && repDim > 1) parts.push("HSDP");
    else if ((shard ?? 2) > 1 || cpDim > 1) parts.push("FSDP2");
    else if (repDim > 1) parts.push("replicated (no gradient sync)");
    if (tpDim > 1) parts.push("TP");
    if (cpDim > 1) parts.push("CP");
    layoutName = parts.join("+") || "single device";
    if (shard !== undefined) parallel = layout({ dp_replicate: repDim, dp_shard: shard, tp: tpDim, cp: cpDim });
  }
  const table = tuneTable(v, dtypeName, singleDevice || W === 1, isLora, cpuOffload);
  if (!training) table.R = noReduce("no training (generation, evaluation or quantization): no gradients");
  const notes: string[] = [];
  if (cpuOffload) notes.push("`fsdp_cpu_offload`: parameters, gradients and optimizer state live on the CPU (in the same dtype); the optimizer step runs on the CPU.");
  if (v.bool("enable_fp8_training")) notes.push("`enable_fp8_training`: Linear layers except `output` run float8 matmuls (torchao Float8Linear).");
  if (/qlora/.test(modelComp)) notes.push("QLoRA: the frozen base weights are stored in NF4 and dequantised to the compute dtype in forward.");
  const assumptions: string[] = [];
  if (!dtypeEntry) assumptions.push("`torchtune-missing-dtype` — no `dtype` key: recipes read `cfg.dtype` directly, so the run most likely fails at config access [spec §1.2, inferred]; shown as fp32 (what `get_dtype(None)` returns).");
  const failed = launchErrors(d);
  const mechanism = failed.length || broken ? "error" : "none";
  const md = summaryMarkdown({
    failed,
    reasonLine: detectTorchtune(doc) ?? FORCED,
    framework: "torchtune",
    layoutName,
    worldSize,
    layout: parallel,
    mechanism: "none",
    meaning: `torchtune builds the whole model in \`dtype\` (${dtypeName ?? "fp32"}); there is no autocast and no FSDP mixed-precision policy, so ${dtypeName === "bf16" ? "**pure bf16**: no fp32 master weights" : "everything runs in that dtype"}.`,
    table,
    notes,
    assumptions,
  });
  const hovers = hoversAt([dtypeEntry?.keyRange, tpEntry?.keyRange, shardEntry?.keyRange, repEntry?.keyRange, cpuOff?.keyRange, v.keyRange("context_parallel_dim")], md);
  const storage = table.P.dtype as DType;
  const engineSpec: EngineSpec | undefined = !training
    ? undefined
    : singleDevice
      ? { mechanism: "none", layout: layout({}), ddp: false, param: storage, reduce: storage, storage }
      : { mechanism: "fully_shard", layout: simLayout(parallel, true, false), ddp: false, param: storage, reduce: storage, storage };
  const inlayHints = precisionHint(dtypeEntry?.value.range, table, failed.length > 0 || broken);
  if (shardEntry && shardDim === -1 && parallel && W) {
    inlayHints.push({ position: shardEntry.value.range.end, label: ` → ${parallel.dp_shard} on ${W} GPU${W === 1 ? "" : "s"}`, tooltip: `-1 resolves to world size / (replicate × tp × cp) = ${W} / (${repDim} × ${tpDim} × ${cpDim}). World size from ${worldSize!.detail}.` });
  }
  const out: FrameworkAnalysis = { layoutName, mechanism, precision: toResolved(table), diagnostics: d.out, hovers, reportMarkdown: withPerOp(md, engineSpec), inlayHints };
  if (worldSize) out.worldSize = worldSize;
  if (parallel) out.parallel = parallel;
  return out;
}

function tuneTable(v: View, dtypeName: string | undefined, single: boolean, lora: boolean, cpuOffload: boolean): PrecisionTable {
  const dtype: DType = (dtypeName && DTYPES[dtypeName]) || "float32";
  const src = dtypeName ? `\`dtype: ${dtypeName}\`` : "no `dtype` (fp32 assumed)";
  const opt = v.str("optimizer", "_component_") ?? "";
  const eightBit = /8bit/i.test(opt);
  const where = cpuOffload ? " (on CPU)" : "";
  return {
    P: dt(dtype, `${src}${lora ? "; base frozen, LoRA adapters in the same dtype" : ""}${where}`),
    C: dt(dtype, `${src} (no autocast)`),
    G: dt(dtype, `${src}${where}`),
    R: single ? noReduce("single-device recipe: no gradient reduction") : dt(dtype, `${src} (fully_shard without a mixed-precision policy)`),
    O: eightBit ? dt("8-bit", `\`${opt}\` (quantized states)`) : dt(dtype, `${src}: optimizer states follow the parameters${where}`),
  };
}


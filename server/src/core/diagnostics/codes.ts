/**
 * The registry of diagnostic codes: one entry per code any analyser can emit, with a one-line summary and
 * the editor tags that apply to every diagnostic of that code (LSP DiagnosticTag: `unnecessary` fades the
 * range, `deprecated` strikes it through). Tags are applied centrally (`applyCodeTags`, from analyze.ts),
 * never by the rules. Each code has its page, docs/diagnostics/<code>.md (framework codes contain a `/`,
 * so their pages sit in a subfolder); `codeHref` is the one place that builds its address, for LSP's
 * codeDescription.href, the CLI's JSON and SARIF's helpUri.
 *
 * Where codes are declared: the torchtitan rules list theirs in `TitanRule.codes` (rules/index.ts); the
 * framework analysers emit `<framework>/<CODE>` through `diagnostics(ns).add`. test/diagnostic-codes.test.ts
 * ties both to this table (every declared or emitted code is here, every code here has its page).
 *
 * Names: a code says what it checks, in kebab-case (`no-mixed-precision`); the torchtitan and shared codes stand
 * alone, every other framework's carry its id as a prefix (`transformers/unknown-key`). The opaque codes they had
 * before issue #34 (`transformers/HF6`) live on as aliases: renamed-codes.json is the one table of them (read here,
 * by scripts/rename-rule-codes.mjs and by the docs generator); a user may still write an old code wherever a code
 * is named (suppression comments), and the CLI's JSON and SARIF carry it beside the new one.
 */
import type { Diagnostic } from "../model/types";
import { table } from "../model/table";
import RENAMED from "./renamed-codes.json";

export type CodeTag = "unnecessary" | "deprecated";

export interface CodeInfo {
  /** One line: what the diagnostic says is wrong. */
  summary: string;
  /** Tags every diagnostic of this code carries. */
  tags?: readonly CodeTag[];
}

/**
 * ASSUMPTION: the repository's public address (README's install section uses the same). The pages are
 * docs/diagnostics/<code>.md on the main branch.
 */
export const REPOSITORY_URL = "https://github.com/precision-lens/precision-lens";

const U: readonly CodeTag[] = ["unnecessary"];
const D: readonly CodeTag[] = ["deprecated"];

export const DIAGNOSTIC_CODES: Readonly<Record<string, CodeInfo>> = table({
  // torchtitan: parallel layout
  "parallel-dims-degree": { summary: "A parallelism degree below 1: ParallelDims rejects it at launch." },
  "parallel-dims-type": { summary: "A parallelism degree that is not an integer." },
  "parallel-dims-limit": { summary: "A parallelism degree beyond what Precision Lens analyses; it cannot say what happens." },
  "parallel-dims-dp-shard": { summary: "data_parallel_shard_degree is neither -1 nor at least 1." },
  "parallel-dims-resolved": { summary: "data_parallel_shard_degree = -1 resolves to 0: the other degrees need more GPUs than the world size." },
  "parallel-dims-product": { summary: "The parallel degrees do not multiply to the world size." },
  "parallel-dims-etp": { summary: "expert_tensor_parallel_degree must equal tensor_parallel_degree or be 1." },
  "parallel-dims-ep-divisibility": { summary: "Expert parallelism does not divide the data-parallel × context-parallel ranks (2025-07-08 … 2025-12-17)." },
  "ddp-with-other-parallelism": { summary: "DDP (dp_replicate > 1 without sharding) combined with TP or PP: torchtitan refuses it." },
  "ep-needs-tp-mesh": { summary: "llama4 or qwen3 with expert parallelism and TP = 1 at v0.2.1: the tp mesh is asked for, launch error." },
  "ep-without-fsdp-mesh": { summary: "An MoE model with expert parallelism and no FSDP mesh: launch error from v0.2.1." },
  // torchtitan: precision
  "no-mixed-precision": { summary: "The layout gets no mixed precision: compute, parameters and gradients stay fp32." },
  "unknown-dtype": { summary: "A dtype string torchtitan's TORCH_DTYPE_MAP does not know: KeyError at launch." },
  "float16-without-grad-scaler": { summary: "float16 training without loss scaling (torchtitan has no GradScaler)." },
  "reduce-dtype-not-allowed": { summary: "A dtype outside the knob's allowed values (e.g. mixed_precision_reduce = \"bfloat16\" in v0.2.2)." },
  "fp32-param-dtype": { summary: "mixed_precision_param = \"float32\": no mixed precision, on purpose." },
  "pure-bf16": { summary: "training.dtype = \"bfloat16\": no fp32 master copy of weights, gradients or optimizer state." },
  "bf16-storage-fp32-compute": { summary: "bf16 parameter storage with fp32 compute: every matmul up-casts." },
  "no-effect": { summary: "A setting that only FSDP reads, in a layout without FSDP.", tags: U },
  "cpu-offload-without-fsdp": { summary: "CPU offload works only through FSDP; this layout has none." },
  "cp-attention-unsupported": { summary: "Context parallelism with an attention backend or load balancer torchtitan refuses (varlen; ptrr with SDPA)." },
  "pp-bubble": { summary: "Fewer microbatches than pipeline stages: the pipeline idles (a bubble)." },
  "pp-1f1b-microbatches": { summary: "The 1F1B schedule with fewer microbatches than pipeline stages: Schedule1F1B raises at launch." },
  "model-not-in-release": { summary: "A model name or flavor the targeted torchtitan release does not register: the launch fails." },
  "module-not-in-release": { summary: "An extension module in torchtitan's package that the targeted release does not ship: ModuleNotFoundError at launch." },
  "memory-exceeds-gpu": { summary: "The estimated peak memory per GPU exceeds the GPU's capacity." },
  // torchtitan: schema (keys, types, values)
  "unknown-key": { summary: "A key the targeted torchtitan release does not know." },
  "unknown-section": { summary: "A table the targeted torchtitan release does not know." },
  "fork-config": { summary: "A torchtitan fork's config: names upstream never had are listed once, not checked." },
  "moved-key": { summary: "A key that moved or was renamed between torchtitan releases." },
  "removed-key": { summary: "A key that a torchtitan release removed." },
  "deprecated-key": { summary: "A key torchtitan still reads but has deprecated.", tags: D },
  "extension-section-without-module": { summary: "A table from an extension module in a config that does not name the module." },
  "wrong-type": { summary: "A value of the wrong type for its key." },
  "invalid-value": { summary: "A value outside the key's allowed set or range." },
  // torchtitan: quantization, compile, batch shape, checkpointing
  "unknown-converter": { summary: "A model converter name the release does not register: KeyError at launch." },
  "mixed-quantization": { summary: "Float8 and MX converters together: torchtitan allows one quantization at a time." },
  "float8-grouped-mm-pp-cp": { summary: "Float8 grouped matmuls with pipeline or context parallelism: torchtitan asserts." },
  "mx-tp-compile": { summary: "MXFP8 Linear with tensor parallelism and torch.compile: torchtitan asserts." },
  "float8-emulate-compile": { summary: "float8 emulate with torch.compile on still needs an SM 8.9+ GPU." },
  "float8-recipe-with-all-gather": { summary: "A float8 recipe together with float8 all-gather: torchtitan asserts." },
  "float8-all-gather-no-effect": { summary: "A float8 FSDP setting that does nothing in this layout.", tags: U },
  "quantize-gpu-unsupported": { summary: "float8 or MXFP8 on a GPU that lacks it (SM 8.9+ / SM100 or gfx950): the launch fails." },
  "quantize-without-compile": { summary: "Low-precision matmuls without torch.compile: slow." },
  "async-tp-without-compile": { summary: "Async tensor parallelism needs the model compiled." },
  "memory-budget-without-compile": { summary: "Activation checkpointing in memory_budget mode needs the model compiled." },
  "seq-len-divisibility": { summary: "seq_len is not divisible by what tensor and context parallelism need." },
  "global-batch-size": { summary: "global_batch_size is not a multiple of local_batch_size × data-parallel degree." },
  "pp-microbatch": { summary: "local_batch_size is not divisible by the pipeline microbatch size." },
  "keep-latest-k": { summary: "checkpoint.keep_latest_k = 1 (or negative): torchtitan raises ValueError." },
  "seed-checkpoint": { summary: "A seed checkpoint needs checkpointing enabled and a single-rank layout." },
  "validation-steps": { summary: "validation.steps must be positive or -1." },
  "fsdp-tp-grad-allreduce-dtype": { summary: "FSDP2 + TP: the TP-mesh gradient all-reduce of replicated parameters does not follow reduce_dtype (pytorch/pytorch#190626)." },
  "toml-not-read": { summary: "The workspace pins a torchtitan that no longer reads TOML configs." },
  // every framework
  "toml-syntax": { summary: "The TOML file does not parse." },
  "yaml-syntax": { summary: "The YAML file does not parse." },
  "json-syntax": { summary: "The JSON file does not parse." },
  "yaml-1.1-boolean": { summary: "A bare yes/no/on/off that PyYAML (YAML 1.1) reads as a boolean." },
  "yaml-alias-limit": { summary: "YAML alias expansion stopped at its node limit." },
  "unused-suppression": { summary: "A disable= comment that suppresses nothing.", tags: U },
  "invalid-directive": { summary: "A `# precision-lens:` directive with a value it cannot use." },
  "internal-error": { summary: "The analysis itself failed; the file is unchanged." },
  "invalid-utf8": { summary: "The file is not valid UTF-8; the framework's loader rejects it." },
  "nul-bytes": { summary: "A training config with NUL bytes: Python's TOML, YAML and JSON loaders reject it." },
  "not-analysed": { summary: "A config file Precision Lens did not analyse (e.g. nested beyond its bound)." },
  // torchtune
  "automodel/bf16-weights-adam": { summary: "A model stored in bf16/fp16 trained with Adam: no fp32 master copy." },
  "automodel/unknown-dtype": { summary: "A dtype string NeMo AutoModel's dtype_from_str does not know: KeyError at launch." },
  "automodel/low-precision-reduction": { summary: "Gradients reduced in bf16/fp16 (FSDP2 reduce_dtype, Megatron-FSDP without grad_reduce_in_fp32)." },
  "automodel/mixed-precision-not-applied": { summary: "FSDP2's mp_policy on one GPU: FSDP2 is not applied, an fp32 model computes in fp32." },
  "megatron/bf16-and-fp16": { summary: "--bf16 with --fp16: validate_args asserts they are exclusive." },
  "megatron/parallel-sizes": { summary: "Parallel sizes validate_args rejects: world size, layers or experts not divisible." },
  "megatron/fp8-without-bf16": { summary: "--fp8-format without --bf16: parameters and every non-FP8 op stay fp32." },
  "megatron/precision-aware-optimizer": { summary: "Optimizer dtype flags the optimizer config rejects (precision-aware optimizer)." },
  "megatron/low-precision-gradients": { summary: "Gradients accumulated and reduced in bf16/fp16 instead of fp32." },
  "verl/bf16-weights-adamw": { summary: "An actor or critic trained with model_dtype bf16: AdamW on bf16 weights, no fp32 master copy." },
  "verl/unknown-dtype": { summary: "A dtype verl's PrecisionType does not accept: the worker raises RuntimeError." },
  "verl/param-dtype-not-applied": { summary: "mixed_precision.param_dtype that this verl version's forward ignores (bf16 autocast hard-coded)." },
  "verl/fp16-without-loss-scaling": { summary: "fp16 parameters where this verl version creates no loss scaler." },
  "verl/low-precision-reduction": { summary: "Gradients reduced in bf16/fp16 across the data-parallel ranks." },
  "verl/unsupported-megatron-dtype": { summary: "A Megatron role's megatron.dtype other than bfloat16/float16: McoreEngineConfig stops the launch." },
  "verl/mixed-precision-needs-plus": { summary: "A mixed_precision override without +: Hydra rejects a key verl's config lacks." },
  "torchtune/fp16-training-rejected": { summary: "dtype: fp16 in a training recipe: torchtune rejects full fp16 training." },
  "torchtune/unknown-dtype": { summary: "A dtype name torchtune does not accept." },
  "torchtune/pure-bf16": { summary: "dtype: bf16 is pure bf16: no fp32 master copy." },
  "torchtune/optimizer-in-bwd-clipping-accumulation": { summary: "optimizer_in_bwd with gradient clipping or accumulation: the recipe raises." },
  "torchtune/optimizer-in-bwd-compile": { summary: "compile: True compiles the optimizer step, which optimizer_in_bwd rejects." },
  "torchtune/tensor-parallel-plan": { summary: "Tensor parallelism without a plan, or with a LoRA model." },
  "torchtune/offload-without-checkpointing": { summary: "Activation offloading without activation checkpointing: the recipe raises." },
  "torchtune/bitsandbytes-distributed": { summary: "A bitsandbytes optimizer in a distributed recipe." },
  "torchtune/replicate-only-data-parallel": { summary: "Replicate-only data parallelism: torchtune applies no FSDP." },
  "torchtune/cpu-offload-without-fused-adamw": { summary: "FSDP CPU offload without fused AdamW: the CPU optimizer step is slow." },
  "torchtune/cpu-offload-key-ignored": { summary: "fsdp.cpu_offload is never read; the recipes read fsdp_cpu_offload.", tags: U },
  "torchtune/parallel-dims-product": { summary: "The parallel dims do not multiply to the world size." },
  // accelerate
  "accelerate/bare-no-boolean": { summary: "A bare no/NO that PyYAML reads as a boolean where accelerate expects a string." },
  "accelerate/unknown-key": { summary: "An unknown accelerate config key or distributed_type." },
  "accelerate/unknown-mixed-precision": { summary: "mixed_precision is not one of no, fp16, bf16, fp8." },
  "accelerate/key-belongs-in-deepspeed-file": { summary: "A key that must live in the DeepSpeed file when deepspeed_config_file is set." },
  "accelerate/low-precision-reduction": { summary: "FSDP with bf16/fp16 mixed precision reduces gradients in low precision." },
  "accelerate/fsdp-version-option": { summary: "FSDP1-only options, or the wrong reshard_after_forward type for the FSDP version." },
  "accelerate/fsdp2-unsupported-option": { summary: "An option FSDP2 does not support (forward prefetch, LOCAL_STATE_DICT)." },
  "accelerate/ram-efficient-loading-without-sync": { summary: "RAM-efficient loading without fsdp_sync_module_states." },
  "accelerate/parallelism-key-without-prefix": { summary: "parallelism_config keys without their parallelism_config_ prefix are ignored.", tags: U },
  "accelerate/parallelism-sizes": { summary: "Parallelism sizes that do not fit the world size or each other." },
  "accelerate/fp16-prefer-bf16": { summary: "fp16 mixed precision: prefer bf16 on Ampere or newer; load the model in fp32." },
  "accelerate/fp8-without-backend": { summary: "fp8 without an explicit backend." },
  "accelerate/fsdp1-sharding-strategy-wins": { summary: "FSDP1 under accelerate launch: the exported sharding strategy wins over reshard_after_forward." },
  "accelerate/ignored-backend-section": { summary: "A deepspeed_config / fsdp_config section under another distributed_type: accelerate launch ignores it." },
  "accelerate/ignored-deepspeed-key": { summary: "A key under `deepspeed_config` that `accelerate launch` never passes to DeepSpeed (no deepspeed_config_file): the value does not reach the run." },
  "accelerate/deepspeed-config-missing": { summary: "The referenced DeepSpeed config file was not found." },
  // Lightning
  "lightning/unknown-precision": { summary: "A precision value Lightning does not accept." },
  "lightning/legacy-precision-alias": { summary: "A legacy precision alias (16, bf16, 32, 64).", tags: D },
  "lightning/fsdp-unsupported-precision": { summary: "A precision the FSDP strategy does not support." },
  "lightning/deepspeed-unsupported-precision": { summary: "A precision or clipping mode the DeepSpeed strategy does not support." },
  "lightning/model-parallel-unsupported-precision": { summary: "A precision ModelParallelStrategy does not support." },
  "lightning/fsdp-norm-clipping": { summary: "Norm-based gradient clipping with the FSDP strategy." },
  "lightning/fp16-true-without-loss-scaling": { summary: "precision: 16-true trains in fp16 with no loss scaling." },
  "lightning/pure-bf16": { summary: "precision: bf16-true is pure bf16: no fp32 master copy." },
  "lightning/low-precision-reduction": { summary: "FSDP with bf16-mixed/16-mixed reduces gradients in low precision." },
  "lightning/precision-and-plugin": { summary: "Both precision and a Precision plugin are set." },
  "lightning/fp16-mixed-on-cpu": { summary: "16-mixed on CPU: Lightning switches to bf16-mixed." },
  "lightning/model-parallel-sizes": { summary: "ModelParallelStrategy sizes do not match devices × num_nodes." },
  // Axolotl
  "transformers/pure-16-bit": { summary: "bf16/fp16 AMP over a model loaded in bf16/fp16 on a plain/DDP launch: pure 16-bit, no fp32 master weights." },
  "transformers/low-precision-reduction": { summary: "accelerate FSDP under bf16/fp16: gradients reduced in 16 bits; FSDP2's fp32 upcast is a no-op at accelerate 1.13.0." },
  "transformers/deepspeed-value-mismatch": { summary: "The DeepSpeed file sets a value the Trainer fills from TrainingArguments, and they differ (set it to \"auto\")." },
  "transformers/pure-bf16-zero3": { summary: "LLaMA-Factory pure_bf16 with DeepSpeed ZeRO-3: rejected at launch." },
  "transformers/llamafactory-rejected-args": { summary: "LLaMA-Factory's get_train_args rejects this combination at launch." },
  "transformers/flash-attention-fp32": { summary: "FlashAttention with fp32 compute (fp32 load, no bf16/fp16 AMP)." },
  "transformers/unknown-key": { summary: "A key the argument parser does not know (or not at the pinned transformers release)." },
  "transformers/launcher-precision-mismatch": { summary: "The accelerate launcher's mixed_precision and TrainingArguments bf16/fp16 disagree (a ValueError under DeepSpeed)." },
  "transformers/bf16-and-fp16": { summary: "bf16 and fp16 both true: TrainingArguments raises ValueError." },
  "transformers/launch-config-missing": { summary: "A launch line names this file with an accelerate config that is missing or is a DeepSpeed JSON: the launcher is unknown." },
  "transformers/boolean-enum-value": { summary: "A boolean (bare `no`/`off`/`yes`/`on` in YAML) where TrainingArguments wants an enum name: ValueError." },
  "transformers/grpo-generation-batch": { summary: "TRL's GRPOConfig batch checks: the generation batch must split into whole prompt groups (`num_generations`) and whole global batches." },
  "transformers/trl-model-dtype": { summary: "The model dtype as TRL's scripts set it: `torch_dtype` rejected at TRL 1.x; `model_init_kwargs` dtype ignored by the TRL CLI." },
  "transformers/fp16-model-fp16-amp": { summary: "A model loaded in fp16 with `fp16` AMP on a plain/DDP launch: the GradScaler raises \"Attempting to unscale FP16 gradients\" at the first step." },
  "transformers/fsdp1-strategy-with-fsdp2": { summary: "An FSDP1-only `fsdp` strategy (hybrid_shard, no_shard) with FSDP2, the default from transformers 5.10.1: ValueError." },
  "axolotl/invalid-bf16-value": { summary: "A bf16 value (or key) Axolotl's schema rejects." },
  "axolotl/bf16-and-fp16": { summary: "bf16 and fp16 both on: Axolotl silently drops fp16.", tags: U },
  "axolotl/load-dtype-only": { summary: "bfloat16/float16: true only sets the load dtype; bf16 AMP stays on." },
  "axolotl/pure-bf16": { summary: "A full fine-tune in pure bf16 (no fp32 master copy)." },
  "axolotl/fsdp-option-conflict": { summary: "An FSDP2-only option without FSDP2, or DeepSpeed together with FSDP." },
  "axolotl/fp16-full-finetune": { summary: "fp16 on a full fine-tune: the GradScaler fails on fp16 gradients." },
  "axolotl/deprecated-fsdp1-syntax": { summary: "Deprecated FSDP1 configuration syntax.", tags: D },
  "axolotl/bitsandbytes-fsdp2": { summary: "A bitsandbytes 8-bit optimizer with FSDP2." },
  "transformers/bf16-unsupported-gpu": { summary: "bf16 on a GPU without bf16 tensor cores (V100, T4, RTX 20xx): ValueError at transformers 4.21–4.34, emulated from 4.35." },
  "transformers/fp16-on-bf16-checkpoint": { summary: "`fp16: true` on a checkpoint trained in bf16, on a GPU that runs bf16: fp16's range (max 65504) can overflow where bf16 was meant." },
  "axolotl/deepspeed-config-missing": { summary: "The referenced DeepSpeed config file was not found." },
  "axolotl/ignored-deepspeed-config": { summary: "A `deepspeed_config:` block in an Axolotl config: Axolotl never reads it (its key is `deepspeed`), so DeepSpeed does not run." },
  "lightning/deepspeed-config-missing": { summary: "The referenced DeepSpeed config file was not found." },
  // DeepSpeed
  "deepspeed/bf16-and-fp16": { summary: "fp16 and bf16 both enabled, or Apex amp with DeepSpeed's own mode." },
  "deepspeed/amp-with-zero": { summary: "Apex amp with ZeRO: DeepSpeed asserts they are incompatible." },
  "deepspeed/auto-without-trainer": { summary: "\"auto\" values in a file the deepspeed launcher runs directly." },
  "deepspeed/bf16-master-weights": { summary: "bf16 master-weight options and what they keep in bf16." },
  "deepspeed/bf16-grad-accumulation": { summary: "bf16 gradient accumulation." },
  "deepspeed/low-precision-reduction": { summary: "Gradients averaged across ranks in 16 bits (no communication_data_type)." },
  "deepspeed/invalid-value": { summary: "An invalid DeepSpeed value (communication dtype, loss scale, optimizer clipping)." },
  "deepspeed/batch-size-product": { summary: "The batch-size trio does not multiply out." },
  "deepspeed/precision-mismatch": { summary: "This DeepSpeed file and the config that references it disagree on precision." },
  "deepspeed/string-boolean": { summary: "A precision switch written as a string boolean (\"enabled\": \"true\"): DeepSpeed reads the boolean, HF Trainer rejects it." },
  "deepspeed/duplicate-key": { summary: "A key defined twice in one JSON object: DeepSpeed refuses the file." },
  "deepspeed/no-batch-size": { summary: "Neither train_batch_size nor train_micro_batch_size_per_gpu: DeepSpeed asserts." },
  "deepspeed/unknown-precision-key": { summary: "A key the fp16/bf16 block's config model forbids: DeepSpeed raises a ValidationError." },
});

/** Old code → its readable name (issue #34), the one table (renamed-codes.json). */
export const RENAMED_CODES: Readonly<Record<string, string>> = table(RENAMED as Record<string, string>);

const ALIASES: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, string[]>();
  for (const [old, now] of Object.entries(RENAMED_CODES)) m.set(now, [...(m.get(now) ?? []), old]);
  return m;
})();

/** The code a user means: an old code (`transformers/HF6`) is its readable name; any other is itself. */
export function canonicalCode(code: string): string {
  return Object.prototype.hasOwnProperty.call(RENAMED_CODES, code) ? RENAMED_CODES[code]! : code;
}

/** The old codes that still name `code` (empty for a code that was never renamed). */
export function codeAliases(code: string): readonly string[] {
  return ALIASES.get(code) ?? [];
}

/**
 * The key that orders findings on the same range (build.ts sortDiagnostics): a renamed code's old code, so the
 * output order did not change with the names (scripts/corpus-diff.sh differs only in the names); any other code itself.
 */
export function codeSortKey(code: string): string {
  return ALIASES.get(code)?.[0] ?? code;
}

export function codeInfo(code: string): CodeInfo | undefined {
  return Object.prototype.hasOwnProperty.call(DIAGNOSTIC_CODES, code) ? DIAGNOSTIC_CODES[code] : undefined;
}

/** The repository path of a code's page: docs/diagnostics/<code>.md (framework codes: <framework>/<name>.md). */
export function codeDocPath(code: string): string {
  return `docs/diagnostics/${code}.md`;
}

/** Where the pages are published: docs/diagnostics on the repository's main branch. */
export const PUBLISHED_DOCS = `${REPOSITORY_URL}/blob/main/docs/diagnostics`;

/**
 * The address of a code's page (LSP codeDescription.href, CLI JSON `href`, SARIF helpUri): under `base`,
 * the published pages by default; the language server passes the pages bundled with it (a file: URI), so
 * the link opens offline in the editor.
 */
export function codeHref(code: string, base: string = PUBLISHED_DOCS): string {
  return `${base}/${code.split("/").map(encodeURIComponent).join("/")}.md`;
}

/** Applies the registry's tags to diagnostics (called once, centrally, on every analysis result). */
export function applyCodeTags(ds: Diagnostic[]): Diagnostic[] {
  for (const d of ds) {
    const tags = codeInfo(d.code)?.tags;
    if (!tags) continue;
    if (tags.includes("unnecessary")) d.unnecessary = true;
    if (tags.includes("deprecated")) d.deprecated = true;
  }
  return ds;
}

/**
 * Public shapes of the simulator: what the torchtitan analyser passes in, and what comes out.
 */
import type { Mechanism, ParallelLayout } from "../model/layout";
import type { DType } from "../model/types";
import type { AssumptionName, AssumptionUse } from "./assumptions";
import type { AutocastDevice } from "./autocast";
import type { EDType } from "./dtypes";
import type { ClampedPolicy, FsdpLifecycle } from "./fsdp";
import type { Float8RecipeName } from "./float8";
import type { OpKind, OpName } from "./ops";
import type { GpuId } from "./gpus";

export type ActivationCheckpointMode = "none" | "full" | "selective" | "memory_budget";

export interface Float8Input {
  /** `[quantize.linear.float8] recipe_name` / `[float8] recipe_name`; unset = tensorwise (TOML-era default). */
  recipe?: string;
  /** `enable_fsdp_float8_all_gather` (tensorwise only; effective only with dp_shard > 1). */
  fsdpFloat8AllGather?: boolean;
  /**
   * Float8 TP styles are used: torchtitan tests `"float8" in model.converters`, true only for the legacy
   * converter name `"float8"` (the v0.2.x names never match, torchtitan.md §2.3). Tensorwise only.
   */
  float8TensorParallel?: boolean;
  /** `filter_fqns` (modules left in high precision; the shipped configs use ["output"]). */
  filterFqns?: string[];
}

export interface SimulationInput {
  mechanism: Mechanism;
  layout: ParallelLayout;
  /** DDP (composable replicate) wraps the model (MechanismDecision.ddp). */
  ddp: boolean;
  /** `training.mixed_precision_param` (the autocast dtype or FSDP param_dtype). */
  paramDtype: DType;
  /** `training.mixed_precision_reduce`. */
  reduceDtype: DType;
  /** `training.dtype`: storage dtype of parameters, gradients and optimizer states. */
  trainingDtype: DType;
  /**
   * The optimizer states' dtype when it differs from the storage dtype (torchtitan's
   * `optimizer.implementation = "fused_opt_states_bf16"`, 0610235bb #2732): Adam/AdamW exp_avg and exp_avg_sq.
   */
  optimizerStateDtype?: DType;
  /** Present when a float8 linear converter is active. */
  float8?: Float8Input;
  model?: { name?: string; flavor?: string };
  localBatchSize?: number;
  seqLen?: number;
  activationCheckpoint?: ActivationCheckpointMode;
  /** `activation_checkpoint.selective_ac_option` ("op" or an integer string; default "2"). */
  selectiveAcOption?: string;
  /** `activation_checkpoint.memory_budget` (default 0.5). */
  memoryBudget?: number;
  /** `parallelism.pipeline_parallel_microbatch_size` (default 1). */
  ppMicrobatchSize?: number;
  /** `parallelism.pipeline_parallel_schedule` (default 1F1B). */
  ppSchedule?: string;
  /** `parallelism.fsdp_reshard_after_forward` (default "default" = not PP). */
  reshardAfterForward?: "default" | "always" | "never";
  /** FSDP `cast_forward_inputs` (True in the TOML era; False for LLMs from 2026-04-08). */
  castForwardInputs?: boolean;
  /** Loss parallel with TP (`not parallelism.disable_loss_parallel`); default true. */
  lossParallel?: boolean;
  /** Why the mechanism was chosen (MechanismDecision.reason), echoed when no mixed precision applies. */
  mechanismReason?: string;
  /**
   * How the caller's config names the storage dtype and the FSDP param dtype in the engine's explanations
   * (default torchtitan's `training.dtype` and `mixed_precision_param`); another framework passes its own.
   */
  settingNames?: { storage: string; param: string };
  /**
   * The FSDP gradient divide factor is 1.0 (torchtitan sets it: the reduce-scatter is a plain sum). Default
   * true; another framework's FSDP keeps PyTorch's default averaging, which the engine then does not describe.
   */
  gradientDivideFactorOne?: boolean;
  device?: AutocastDevice;
  assumptions?: Partial<Record<AssumptionName, string>>;
  /** `[compile]` / `training.compile`: which parts torch.compile wraps (the loss only in some eras). */
  compile?: { model: boolean; loss: boolean };
  /** `training.enable_cpu_offload` (FSDP CPUOffloadPolicy: parameters, gradients, optimizer states on the CPU). */
  cpuOffload?: boolean;
  /** Legacy `pipeline_parallel_microbatches` (number of microbatches; before 2025-04-07, default = pp). */
  ppMicrobatches?: number;
  /** `enable_async_tensor_parallel` (with compile): TP collectives overlap the matmuls. */
  asyncTp?: boolean;
  /** GPU type for the throughput estimate and the capacity check (default H100 SXM). */
  gpu?: GpuId;
}

export interface StepResult {
  aten: string;
  dtype: EDType;
  reason: string;
}

export interface OpResult {
  op: OpName;
  kind: OpKind;
  /** Forward output dtype. */
  dtype: EDType;
  /** dtype the op's math runs in when it differs from the output (float8 GEMMs, fp32-internal RoPE). */
  computeDtype?: EDType;
  /** Activation input dtypes as the op receives them (after FSDP boundary casts). */
  inputs: EDType[];
  /** The parameter operand as the op sees it (after FSDP / autocast casts). */
  param?: EDType;
  /** The deciding rule, user-facing. */
  rule: string;
  steps: StepResult[];
  /** Autocast cast this op's inputs to this dtype (each call makes its own activation copy). */
  autocastCast?: EDType;
  /** Autocast cast the op's (fp32) weight to this dtype (cached per region, see autocast.ts). */
  weightCast?: EDType;
  float8?: boolean;
}

export interface OpGrad {
  op: OpName;
  /** dtype of the gradient w.r.t. the op's output (= the output's dtype). */
  gradOutput: EDType;
  /** dtypes of the gradients w.r.t. the op's activation inputs. */
  gradInputs: EDType[];
  /** dtype the backward GEMMs / kernels run in. */
  computeDtype: EDType;
  note?: string;
}

export interface ParamResult {
  fqn: string;
  op: OpName;
  storage: EDType;
  /** As the op computes with it (FSDP unsharded copy / autocast cast / storage). */
  compute: EDType;
  gradProduced: EDType;
  /** `.grad` (or FSDP's unsharded grad) before any reduction. */
  gradAccumulated: EDType;
  /** dtype on the wire, when the gradient is reduced across ranks. */
  reduce?: EDType;
  stored: EDType;
  optimizerState: EDType;
  float8?: boolean;
}

export type CollectiveName =
  | "fsdp_all_gather"
  | "fsdp_reduce_scatter"
  | "hsdp_all_reduce"
  | "ddp_all_reduce"
  | "tp_embedding_reduce_scatter"
  | "tp_norm_all_gather"
  | "tp_final_norm_all_gather"
  | "tp_projection_reduce_scatter"
  | "tp_loss_all_reduce"
  | "pp_send_recv";

export interface Collective {
  name: CollectiveName;
  dtype: EDType;
  kind: "all_gather" | "reduce_scatter" | "all_reduce" | "send_recv";
  /** Mesh dimension(s) it runs over. */
  mesh: string;
  /** Direction / frequency, e.g. "forward (and again in backward)", "once per step". */
  when: string;
  why: string;
}

export interface MemoryTerm {
  name: string;
  bytes: number;
  kind: "persistent" | "activation" | "transient";
  detail: string;
}

export interface MemoryEstimate {
  /** Bytes per model parameter on one GPU, divided by the FSDP shard degree where sharded. */
  bytesPerParam: { params: number; grads: number; optimizer: number };
  shardDegree: number;
  /** Total parameters of the model and on one GPU (after TP / PP splitting, before FSDP sharding). */
  paramCount?: number;
  paramsPerGpu?: number;
  activations?: {
    /** Saved activation bytes per token per transformer block, by dtype (TP-local). */
    perTokenPerLayer: Partial<Record<EDType, number>>;
    perTokenPerLayerTotal: number;
    tokensPerMicrobatch: number;
    microbatchesInFlight: number;
    layers: number;
    checkpointing: string;
    bytes: number;
  };
  /**
   * Undefined when the model architecture is unknown. `peak` is allocated memory (torch.cuda
   * max_memory_allocated); `reserved` adds the caching allocator's overhead (max_memory_reserved, what
   * nvidia-smi and torchtitan's logs show).
   */
  perGpuBytes?: { persistent: number; peak: number; reserved: number };
  /** Bytes this rank keeps in CPU memory (CPU offload); undefined when nothing is offloaded. */
  cpuBytes?: number;
  terms: MemoryTerm[];
  notes: string[];
}

export interface Simulation {
  mechanism: Exclude<Mechanism, "error">;
  mixedPrecisionApplied: boolean;
  mixedPrecisionReason: string;
  storageDtype: EDType;
  /** dtype the transformer-block linears compute in (high precision side for float8). */
  computeDtype: EDType;
  autocast?: { dtype: EDType; active: boolean; note: string };
  fsdp?: { policy: ClampedPolicy; lifecycle: FsdpLifecycle; castForwardInputs: boolean };
  float8?: { recipe: Float8RecipeName; convertedOps: OpName[]; fsdpFloat8AllGather: boolean; tensorParallelFloat8: boolean };
  model?: { name: string; flavor: string; params: number; attention: string };
  forward: OpResult[];
  backward: OpGrad[];
  params: ParamResult[];
  grad: { computed: EDType; stored: EDType };
  optimizerState: EDType;
  collectives: Collective[];
  memory: MemoryEstimate;
  /** Undefined when the model architecture is unknown. */
  throughput?: ThroughputEstimate;
  assumptions: AssumptionUse[];
  notes: string[];
  errors: string[];
}

/** The CLI JSON contract (exact shape; other tools read these names). */
export interface SimulationJson {
  forward: Record<string, string>;
  collectives: Record<string, string>;
  grad: { computed: string; stored: string };
  optimizerState: string;
  memory: {
    bytesPerParam: { params: number; grads: number; optimizer: number };
    perGpuBytes: { persistent: number | null; peak: number | null; reserved: number | null };
    /** Bytes this rank keeps in CPU memory with CPU offload (parameters, gradients, optimizer states); null without. */
    cpuBytes: number | null;
  };
  assumptions: { name: string; value: string }[];
  throughput: ThroughputJson | null;
}

export interface ThroughputTerm {
  name: string;
  seconds: number;
  detail: string;
}

export interface ThroughputAlternative {
  label: string;
  mechanism: string;
  /** dtype the transformer-block linears compute in. */
  compute: string;
  tokensPerSecondPerGpu: number | null;
  /** Reserved peak memory per GPU (bytes), or null when the model is unknown. */
  peakBytes: number | null;
}

export interface ThroughputEstimate {
  /**
   * Why no figure is shown (issue #34): the model is below the smallest one the estimate is calibrated on
   * (`CALIBRATED_MIN_PARAMS`, docs/estimates.md), where kernel launches and overheads, not FLOPs, bound the
   * step. The numbers below are still computed (the JSON keeps them beside this reason); no view prints them.
   */
  withheld?: string;
  tokensPerSecondPerGpu: number;
  stepSeconds: number;
  mfu: number;
  gpu: { value: GpuId; source: string };
  /** Time per step by term; compute terms are on the critical path, communication terms are the exposed part. */
  terms: ThroughputTerm[];
  /** Filled by the analyser: the same config with mixed precision on/off and the nearest FSDP layout. */
  alternatives: ThroughputAlternative[];
  notes: string[];
}

export interface ThroughputJson {
  /** Why the figures below are not shown (a model below the calibrated size); absent when they are. */
  withheld?: string;
  tokensPerSecondPerGpu: number;
  stepSeconds: number;
  mfu: number;
  gpu: { value: GpuId; source: string };
  alternatives: ThroughputAlternative[];
}

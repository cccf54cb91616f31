/**
 * verl's defaults that decide precision, read from the `verl/trainer/config/_generated_ppo_trainer.yaml` and
 * `workers/config/engine.py` of the PyPI wheels 0.6.1, 0.7.1, 0.8.0, 0.9.0 and 0.9.1 (identical for these keys
 * in all five): actor, reference and critic models loaded in fp32 (`model_dtype: fp32`), FSDP1 (`strategy:
 * fsdp`), no `mixed_precision` mapping (the workers then use param bf16, reduce fp32, buffer fp32), AdamW with
 * lr 1e-6 (actor) and 1e-5 (critic), the rollout engine in bfloat16 with tensor parallelism 2, one node of
 * 8 GPUs, `use_legacy_worker_impl: auto`.
 */
import { table } from "../../model/table";
import type { DType } from "../../model/types";

/** The newest verl release read (PyPI, 2026-12). */
export const VERL_NEWEST = "0.9.1";

/**
 * The first release whose FSDP engine autocasts to `mixed_precision.param_dtype` (PR verl-project/verl#6150,
 * merged 2026-04-26: 0.7.1's `transformer_impl.py` hard-codes `torch.autocast(dtype=torch.bfloat16)`, 0.8.0's
 * uses `self._autocast_dtype`), and also the first with only the new engine (0.8.0 has no `fsdp_workers.py`).
 */
export const VERL_AUTOCAST_FIX = "0.8.0";

/** Dotted keys → default, for the keys the analysis reads. `${...}` are the interpolations verl writes. */
export const VERL_DEFAULTS: Readonly<Record<string, string | number | boolean | null>> = table({
  "actor_rollout_ref.actor.strategy": "fsdp",
  "actor_rollout_ref.actor.fsdp_config.model_dtype": "fp32",
  "actor_rollout_ref.actor.fsdp_config.dtype": "bfloat16",
  "actor_rollout_ref.actor.fsdp_config.param_offload": false,
  "actor_rollout_ref.actor.fsdp_config.optimizer_offload": false,
  "actor_rollout_ref.actor.optim.optimizer": "AdamW",
  "actor_rollout_ref.actor.optim.lr": 1e-6,
  "actor_rollout_ref.actor.fsdp_config.ulysses_sequence_parallel_size": 1,
  "actor_rollout_ref.ref.strategy": "${actor_rollout_ref.actor.strategy}",
  "actor_rollout_ref.ref.fsdp_config.model_dtype": "fp32",
  "actor_rollout_ref.rollout.dtype": "bfloat16",
  "actor_rollout_ref.rollout.name": "vllm",
  "actor_rollout_ref.rollout.tensor_model_parallel_size": 2,
  "critic.strategy": "fsdp",
  "critic.model.fsdp_config.model_dtype": "fp32",
  "critic.fsdp.model_dtype": "fp32",
  "critic.optim.optimizer": "AdamW",
  "critic.optim.lr": 1e-5,
  "algorithm.adv_estimator": "gae",
  "trainer.n_gpus_per_node": 8,
  "trainer.nnodes": 1,
  "trainer.use_legacy_worker_impl": "auto",
});

/** verl's `PrecisionType.to_dtype` spellings (verl/utils/torch_dtypes.py HALF_LIST, FLOAT_LIST, BFLOAT_LIST; also the ints 16 and 32) → torch dtype; anything else raises RuntimeError "unexpected precision". */
export const VERL_DTYPES: Readonly<Record<string, DType>> = table({
  bf16: "bfloat16",
  bfloat16: "bfloat16",
  fp16: "float16",
  float16: "float16",
  "16": "float16",
  fp32: "float32",
  float32: "float32",
  "32": "float32",
});

/**
 * What verl's packaged `ppo_megatron_trainer.yaml` (`--config-name ppo_megatron_trainer`) sets over the keys
 * above, read from `_generated_ppo_megatron_trainer.yaml` of the PyPI wheels 0.6.1, 0.7.1 and 0.9.1 (identical
 * for these keys): every role on the Megatron workers, each role's `megatron.dtype` bfloat16 (the Megatron-Core
 * `params_dtype`).
 */
export const VERL_MEGATRON_DEFAULTS: Readonly<Record<string, string | number | boolean | null>> = table({
  "actor_rollout_ref.actor.strategy": "megatron",
  "actor_rollout_ref.ref.strategy": "megatron",
  "critic.strategy": "megatron",
  "actor_rollout_ref.actor.megatron.dtype": "bfloat16",
  "actor_rollout_ref.ref.megatron.dtype": "bfloat16",
  "critic.megatron.dtype": "bfloat16",
});

/** The `megatron.dtype` spellings `McoreEngineConfig.__post_init__` accepts (`workers/config/engine.py` at 0.6.1, 0.7.1 and 0.9.1: `assert self.dtype in ["bfloat16", "float16"]`). */
export const VERL_MEGATRON_DTYPES: Readonly<Record<string, DType>> = table({ bfloat16: "bfloat16", float16: "float16" });

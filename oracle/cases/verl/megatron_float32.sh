#!/bin/bash
# Oracle corner case (oracle/cases/README.md): megatron_float32
set -x
MODEL=Qwen/Qwen2.5-0.5B-Instruct
python3 -m verl.trainer.main_ppo --config-path=config --config-name="ppo_megatron_trainer.yaml" \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=$MODEL \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.actor.megatron.dtype=float32 \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 $@

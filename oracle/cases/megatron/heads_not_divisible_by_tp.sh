#!/bin/bash
# Oracle corner case (oracle/cases/README.md): heads_not_divisible_by_tp
GPT_ARGS=(
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048
    --micro-batch-size 1 --global-batch-size 256 --lr 3e-4 --train-iters 1000
)
torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    "${GPT_ARGS[@]}" \
    --bf16 --tensor-model-parallel-size 8 --num-attention-heads 12

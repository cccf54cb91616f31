#!/bin/bash
# GRPO corner cases launched on a known number of processes (the product reads --num_processes)
accelerate launch --num_processes 8 grpo.py --config grpo/ng14_ws8.yaml
accelerate launch --num_processes 7 grpo.py --config grpo/ng14_ws7.yaml
accelerate launch --num_processes 16 grpo.py --config grpo/gbs64_ws16.yaml

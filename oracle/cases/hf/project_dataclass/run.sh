#!/usr/bin/env bash
python train.py config_bf16.yaml

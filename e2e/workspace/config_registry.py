# A torchtitan config registry for the editor E2E suite (written for this test).
# precision-lens: world-size=8 torchtitan-version=v0.4.0
from torchtitan.config import ParallelismConfig, TrainingConfig
from torchtitan.trainer import Trainer


def base() -> Trainer.Config:
    return Trainer.Config(training=TrainingConfig(mixed_precision_param="bfloat16"))


def tp8() -> Trainer.Config:
    config = base()
    config.parallelism = ParallelismConfig(tensor_parallel_degree=8)
    return config


def tp4() -> Trainer.Config:
    config = base()
    config.parallelism = ParallelismConfig(tensor_parallel_degree=4)
    return config

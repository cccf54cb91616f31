"""The device mesh both torchtitan workers build, on a fake process group (titan_worker.py: the TOML releases
0.1.0 … 0.2.2; titan_registry_worker.py: 0.3.0's Python registries).

torchtitan's own ParallelDims.build_mesh() runs on torch.distributed's "fake" backend (FakeStore, rank 0 of
the job's world size), so no process or device is needed; the process group is made once per world size and
re-made when the next job's differs. 0.1.0's build_mesh takes the device type ("cpu"); later releases read
it themselves (torchtitan.tools.utils.device_type, set to "cpu" by the TOML worker).
"""
from __future__ import annotations

import inspect


class FakeWorld:
    """One fake process group at a time, of the world size of the last mesh built."""

    def __init__(self) -> None:
        self.world_size: int | None = None

    def mesh(self, pdims, world_size: int):
        """pdims.build_mesh() on a fake process group of world_size; raises what torchtitan raises."""
        import torch.distributed as dist
        from torch.testing._internal.distributed.fake_pg import FakeStore

        if self.world_size != world_size:
            if dist.is_initialized():
                dist.destroy_process_group()
            dist.init_process_group("fake", rank=0, world_size=world_size, store=FakeStore())
            self.world_size = world_size
        if "device_type" in inspect.signature(pdims.build_mesh).parameters:
            return pdims.build_mesh("cpu")
        return pdims.build_mesh()

    def close(self) -> None:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()

/**
 * The Python body of the script `precision-lens probe` writes (PyTorch only). It never sees config text:
 * `probeScript` puts the resolved plan (mechanism, dtypes, degrees, variants; cli/probeCommand.ts) in front
 * of it as one JSON literal. Kept as data here so the bundle carries it; the oracle runs it on CPU with gloo
 * (oracle/frameworks/probe_worker.py), so it is known to work.
 *
 * What it does: builds a small Llama-style model with the simulation's ops (engine/ops.ts), applies TP
 * (torchtitan's plan: RowwiseParallel embedding, SequenceParallel norms, Colwise wq/wk/wv/w1/w3, Rowwise
 * wo/w2, loss parallel), fully_shard with the MixedPrecisionPolicy, DDP, or torch.autocast, as the plan
 * says; runs one observed step per variant (forward hooks record each op's output dtype, tensor hooks each
 * gradient's, a TorchDispatchMode below autocast the GEMMs' operand dtype, wrappers the collectives'
 * dtype), then three timed steps; prints JSON in the simulation's shape.
 */

export const PROBE_BODY = String.raw`import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16, "float64": torch.float64}
NAME = {v: k for k, v in DT.items()}
NAME.update({torch.complex64: "complex64", torch.int64: "int64"})
DIM, HEADS, LAYERS, VOCAB, SEQ, BATCH = 64, 4, 2, 256, 32, 2
# the order in which a layout is scaled down to the ranks the probe has; CP and PP are not reproduced
PRIORITY = ("tp", "dp_shard", "dp_replicate")


def dname(d):
    return NAME.get(d, str(d).replace("torch.", ""))


def scale(layout, world):
    out = {k: 1 for k in ("dp_replicate", "dp_shard", "cp", "tp", "pp", "ep", "etp")}
    left = world
    for k in PRIORITY:
        if layout.get(k, 1) > 1 and left % 2 == 0:
            out[k] = 2
            left //= 2
    grown = True
    while left > 1 and left % 2 == 0 and grown:
        grown = False
        for k in PRIORITY:
            if left > 1 and left % 2 == 0 and layout.get(k, 1) >= out[k] * 2 and out[k] > 1:
                out[k] *= 2
                left //= 2
                grown = True
    return out


def ranks(layout):
    return layout["dp_replicate"] * layout["dp_shard"] * layout["tp"]


class Obs:
    """What one measured step records: dtypes per op (forward and gradient), per parameter, per collective."""

    def __init__(self):
        self.on = False
        self.phase = ""
        self.last = ""
        self.layer = 0
        self.forward, self.backward, self.compute, self.collectives, self.unmapped = {}, {}, {}, {}, []

    def rec(self, op, t):
        if not self.on or not isinstance(t, torch.Tensor):
            return t
        layer = self.layer
        self.forward.setdefault(op, {})[layer] = dname(t.dtype)
        self.last = op
        if t.requires_grad:
            def hook(g, op=op, layer=layer):
                self.backward.setdefault(op, {})[layer] = dname(g.dtype)
            t.register_hook(hook)
        return t

    def coll(self, source, kind, t):
        if not self.on or self.phase not in ("forward", "backward"):
            return
        name = None
        if source == "c10d" and MECH["fsdp"]:
            name = {"all_gather": "fsdp_all_gather", "reduce_scatter": "fsdp_reduce_scatter", "all_reduce": "hsdp_all_reduce"}[kind]
        elif source == "ddp":
            name = "ddp_all_reduce"
        elif source == "funcol" and self.phase == "forward":
            name = {("reduce_scatter", "tok_embeddings"): "tp_embedding_reduce_scatter", ("all_gather", "attention_norm"): "tp_norm_all_gather",
                    ("all_gather", "ffn_norm"): "tp_norm_all_gather", ("all_gather", "norm"): "tp_final_norm_all_gather",
                    ("reduce_scatter", "wo"): "tp_projection_reduce_scatter", ("reduce_scatter", "w2"): "tp_projection_reduce_scatter",
                    ("all_reduce", "output"): "tp_loss_all_reduce"}.get((kind, self.last))
            if name is None:
                self.unmapped.append(kind + " after " + self.last + " (" + dname(t.dtype) + ")")
                return
        if name:
            self.collectives.setdefault(name, set()).add(dname(t.dtype))


OBS = Obs()
MECH = {"fsdp": False}
GEMMS = {"mm", "addmm", "bmm", "linear", "matmul", "_scaled_mm"}
# None: the script parallelizes the model itself (below, after torchtitan's parallelize_llama)
PARALLELIZE = None


class ComputeMode(TorchDispatchMode):
    """Below autocast: sees each GEMM's operands after autocast's casts (the dtype the weight computes in)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.__name__.split(".")[0]
        if OBS.on and OBS.phase == "forward" and name in GEMMS and OBS.last in LINEARS:
            mats = [a for a in args if isinstance(a, torch.Tensor) and a.dim() >= 2]
            if mats:
                OBS.compute[OBS.last] = dname(mats[-1].dtype)
        return func(*args, **(kwargs or {}))


LINEARS = {"wq", "wk", "wv", "wo", "w1", "w2", "w3", "output"}


def patch_collectives():
    import torch.distributed._functional_collectives as funcol
    for mod, source in ((dist, "c10d"), (funcol, "funcol")):
        for fn, kind, pos in (("all_gather_single", "all_gather", 1), ("all_gather_into_tensor", "all_gather", 1), ("reduce_scatter_single", "reduce_scatter", 1),
                              ("reduce_scatter_tensor", "reduce_scatter", 1), ("all_reduce", "all_reduce", 0), ("all_gather_tensor", "all_gather", 0)):
            orig = getattr(mod, fn, None)
            if orig is None or getattr(orig, "_pl", False):
                continue
            if source == "funcol":
                pos = 0

            def wrapped(*a, _orig=orig, _kind=kind, _pos=pos, _source=source, **k):
                t = a[_pos] if len(a) > _pos else (k.get("input") if _pos == 1 else k.get("self", k.get("tensor")))
                if isinstance(t, torch.Tensor) and getattr(dist, "_pl_observer", None) is not None:
                    dist._pl_observer(_source, _kind, t)
                return _orig(*a, **k)

            wrapped._pl = True
            setattr(mod, fn, wrapped)


class Embed(nn.Embedding):
    def forward(self, x):
        OBS.compute["tok_embeddings"] = dname(self.weight.dtype)
        return OBS.rec("tok_embeddings", super().forward(x))


class Norm(nn.RMSNorm):
    def forward(self, x):
        OBS.compute[self.pl_name] = dname(self.weight.dtype)
        return OBS.rec(self.pl_name, super().forward(x))


class Lin(nn.Linear):
    def forward(self, x):
        OBS.last = self.pl_name
        return OBS.rec(self.pl_name, super().forward(x))


def named(m, name):
    m.pl_name = name
    return m


def rope(x, freqs):
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs.view(1, x.shape[1], 1, -1)).flatten(3).type_as(x)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq, self.wk, self.wv, self.wo = (named(Lin(DIM, DIM, bias=False), n) for n in ("wq", "wk", "wv", "wo"))

    def forward(self, x, freqs, attention_masks=None, positions=None):
        b, s, _ = x.shape
        q, k, v = (w(x).view(b, s, -1, DIM // HEADS) for w in (self.wq, self.wk, self.wv))
        q = OBS.rec("rope", rope(q, freqs))
        k = rope(k, freqs)
        o = OBS.rec("attention", F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True))
        return self.wo(o.transpose(1, 2).reshape(b, s, -1))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1, self.w2, self.w3 = (named(Lin(DIM, 4 * DIM, bias=False), "w1"), named(Lin(4 * DIM, DIM, bias=False), "w2"), named(Lin(DIM, 4 * DIM, bias=False), "w3"))

    def forward(self, x):
        a = OBS.rec("silu", F.silu(self.w1(x)))
        return self.w2(OBS.rec("ffn_mul", a * self.w3(x)))


class Block(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i
        self.attention_norm, self.ffn_norm = named(Norm(DIM), "attention_norm"), named(Norm(DIM), "ffn_norm")
        self.attention, self.feed_forward = Attention(), FeedForward()

    def forward(self, x, freqs):
        OBS.layer = self.i
        h = OBS.rec("attention_residual", x + self.attention(self.attention_norm(x), freqs, None, None))
        return OBS.rec("ffn_residual", h + self.feed_forward(self.ffn_norm(h)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_embeddings = Embed(VOCAB, DIM)
        self.layers = nn.ModuleDict({str(i): Block(i) for i in range(LAYERS)})
        self.norm, self.output = named(Norm(DIM), "norm"), named(Lin(DIM, VOCAB, bias=False), "output")
        hd = DIM // HEADS
        f = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        self.register_buffer("freqs_cis", torch.polar(torch.ones(SEQ, hd // 2), torch.outer(torch.arange(SEQ).float(), f)), persistent=False)

    def forward(self, tokens):
        OBS.layer = 0
        h = self.tok_embeddings(tokens)
        for blk in self.layers.values():
            h = blk(h, self.freqs_cis)
        OBS.layer = LAYERS
        return self.output(self.norm(h))


def build(v, device, world):
    from torch.distributed.device_mesh import init_device_mesh
    L = v["layout"]
    model = Model().to(device)
    model.to(DT[v["trainingDtype"]])
    model.freqs_cis = model.freqs_cis.to(torch.complex64)
    names, shape = [], []
    for k in ("dp_replicate", "dp_shard", "tp"):
        if L[k] > 1:
            names.append(k)
            shape.append(L[k])
    mesh = init_device_mesh(device.type, tuple(shape) or (1,), mesh_dim_names=tuple(names) or ("dp_shard",))
    MECH["fsdp"] = v["mechanism"] == "fully_shard"
    if PARALLELIZE is not None:
        # another parallelizer (the oracle passes torchtitan's own apply_tp / apply_fsdp / apply_ddp)
        return PARALLELIZE(model, v, mesh, names), mesh
    if L["tp"] > 1:
        from torch.distributed.tensor import Replicate, Shard
        from torch.distributed.tensor.parallel import ColwiseParallel, PrepareModuleInput, RowwiseParallel, SequenceParallel, parallelize_module
        lp = v["lossParallel"]
        parallelize_module(model, mesh["tp"], {
            "tok_embeddings": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
            "norm": SequenceParallel(),
            "output": ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(-1) if lp else Replicate(), use_local_output=not lp),
        })
        for blk in model.layers.values():
            parallelize_module(blk, mesh["tp"], {
                "attention_norm": SequenceParallel(),
                "attention": PrepareModuleInput(input_layouts=(Shard(1), None, None, None), desired_input_layouts=(Replicate(), None, None, None)),
                "attention.wq": ColwiseParallel(), "attention.wk": ColwiseParallel(), "attention.wv": ColwiseParallel(),
                "attention.wo": RowwiseParallel(output_layouts=Shard(1)),
                "ffn_norm": SequenceParallel(),
                "feed_forward": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
                "feed_forward.w1": ColwiseParallel(), "feed_forward.w2": RowwiseParallel(output_layouts=Shard(1)), "feed_forward.w3": ColwiseParallel(),
            })
    if MECH["fsdp"]:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        dp = [n for n in ("dp_replicate", "dp_shard") if n in names]
        dp_mesh = mesh[tuple(dp)] if len(dp) > 1 else mesh[dp[0]] if dp else mesh
        mp = MixedPrecisionPolicy(param_dtype=DT[v["paramDtype"]], reduce_dtype=DT[v["reduceDtype"]], cast_forward_inputs=v["castForwardInputs"])
        fully_shard(model.tok_embeddings, mesh=dp_mesh, mp_policy=mp)
        for blk in model.layers.values():
            fully_shard(blk, mesh=dp_mesh, mp_policy=mp)
        fully_shard([model.norm, model.output], mesh=dp_mesh, mp_policy=mp)
        fully_shard(model, mesh=dp_mesh, mp_policy=mp)
    elif v["ddp"] and L["dp_replicate"] > 1:
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(model, process_group=mesh["dp_replicate"].get_group())
        model.register_comm_hook(mesh["dp_replicate"].get_group(), ddp_comm_hook)
    return model, mesh


def ddp_comm_hook(state, bucket):
    """DDP's default all-reduce, recording the bucket's dtype (what goes on the wire)."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    OBS.coll("ddp", "all_reduce", bucket.buffer())
    return default_hooks.allreduce_hook(state, bucket)


def step(model, v, device, tokens, labels, observe):
    from contextlib import nullcontext
    OBS.on = observe
    lp = v["layout"]["tp"] > 1 and v["lossParallel"]
    if lp:
        from torch.distributed.tensor.parallel import loss_parallel
        lctx = loss_parallel()
    else:
        lctx = nullcontext()
    amp = torch.autocast(device.type, dtype=DT[v["paramDtype"]]) if v["mechanism"] == "autocast" else nullcontext()
    mode = ComputeMode() if observe else nullcontext()
    with lctx:
        OBS.phase = "forward"
        with mode, amp:
            pred = model(tokens)
            OBS.last = "output"
            loss = F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))
            OBS.layer = LAYERS
            OBS.rec("loss", loss)
        OBS.phase = "backward"
        loss.backward()
    OBS.phase = "optim"
    OBS.on = False


def modules(model):
    m = getattr(model, "module", model)
    blk = m.layers[str(LAYERS - 1)]
    return {"tok_embeddings": m.tok_embeddings, "attention_norm": blk.attention_norm, "wq": blk.attention.wq, "wk": blk.attention.wk, "wv": blk.attention.wv,
            "wo": blk.attention.wo, "ffn_norm": blk.ffn_norm, "w1": blk.feed_forward.w1, "w2": blk.feed_forward.w2, "w3": blk.feed_forward.w3,
            "norm": m.norm, "output": m.output}


def last_layer(d):
    return {op: by[max(by)] for op, by in d.items()}


def run_variant(v, device, world, rank):
    global OBS
    OBS = Obs()
    # the collective wrappers (patched once per process) report to the variant being run
    dist._pl_observer = OBS.coll
    torch.manual_seed(0)
    model, mesh = build(v, device, world)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g).to(device)
    labels = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g).to(device)
    mods = modules(model)
    seen = {}

    def grad_hook(op):
        def h(grad):
            seen[op] = dname(grad.dtype)
        return h

    step(model, v, device, tokens, labels, True)
    # the weight as autograd accumulates its gradient: FSDP's unsharded parameter, or the parameter itself
    params = {}
    for op, m in mods.items():
        p = m.weight
        params[op] = {"storage": dname(p.dtype), "compute": OBS.compute.get(op, dname(p.dtype)), "stored": dname(p.grad.dtype) if p.grad is not None else None}
    opt.step()
    for op, m in mods.items():
        st = opt.state.get(m.weight, {})
        params[op]["optimizerState"] = dname(st["exp_avg"].dtype) if "exp_avg" in st else None
    opt.zero_grad()
    forward, backward = last_layer(OBS.forward), last_layer(OBS.backward)
    collectives = {k: sorted(s) for k, s in OBS.collectives.items()}
    unmapped = sorted(set(OBS.unmapped))
    # timed steps: no observation
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        step(model, v, device, tokens, labels, False)
        opt.step()
        opt.zero_grad()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    best = min(times)
    dp = v["layout"]["dp_replicate"] * v["layout"]["dp_shard"]
    out = {
        "label": v["label"], "mechanism": v["mechanism"], "paramDtype": v["paramDtype"], "reduceDtype": v["reduceDtype"], "trainingDtype": v["trainingDtype"],
        "ddp": v["ddp"], "layout": v["layout"], "configuredLayout": v["configuredLayout"], "worldSize": world,
        "forward": forward, "backward": backward, "params": params,
        "grad": {"stored": params["wq"]["stored"]}, "optimizerState": params["wq"]["optimizerState"],
        "collectives": collectives, "unmapped": unmapped,
        "stepSeconds": best, "tokensPerSecondPerRank": BATCH * SEQ * dp / max(ranks(v["layout"]), 1) / best if best > 0 else None,
        "peakBytes": torch.cuda.max_memory_allocated() if device.type == "cuda" else None,
    }
    del model, opt
    return out


def worker(rank, world, device_name, variants, port, result_path):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(port)
    device = torch.device(device_name, rank) if device_name == "cuda" else torch.device("cpu")
    if device_name == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if device_name == "cuda" else "gloo", rank=rank, world_size=world)
    patch_collectives()
    try:
        results = [run_variant(v, device, world, rank) for v in variants]
        if rank == 0:
            with open(result_path, "w") as f:
                json.dump(results, f)
    finally:
        dist.destroy_process_group()


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def main():
    ap = argparse.ArgumentParser(description="precision-lens probe: one measured training step per variant, dtypes observed by hooks")
    ap.add_argument("--device", choices=["cuda", "cpu"], default=PLAN["device"])
    ap.add_argument("--nproc", type=int, default=None, help="ranks to scale the layout to (default: the GPUs present, 4 on CPU; torchrun's world size under torchrun)")
    ap.add_argument("--out", default=None, help="write the observation JSON here (default: stdout)")
    a = ap.parse_args()
    import tempfile
    import torch.multiprocessing as mp
    under_torchrun = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    world = int(os.environ["WORLD_SIZE"]) if under_torchrun else a.nproc or (torch.cuda.device_count() if a.device == "cuda" else 4)
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("probe: --device cuda but no CUDA device is available (use --device cpu)")
    groups = {}
    skipped = []
    for v in PLAN["variants"]:
        sv = dict(v, configuredLayout=v["layout"], layout=scale(v["layout"], world))
        n = ranks(sv["layout"])
        if under_torchrun and n != world:
            skipped.append({"label": v["label"], "why": "scaled to " + str(n) + " ranks; run without torchrun (the probe spawns its own ranks) or with --nproc_per_node " + str(n)})
            continue
        groups.setdefault(n, []).append(sv)
    results = []
    for n, vs in sorted(groups.items()):
        if under_torchrun:
            rank = int(os.environ["RANK"])
            path = os.path.join(tempfile.gettempdir(), "pl-probe-" + os.environ.get("MASTER_PORT", "0") + ".json")
            worker(rank, n, a.device, vs, int(os.environ.get("MASTER_PORT", "29500")), path)
            if rank != 0:
                return
        else:
            fd, path = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            mp.spawn(worker, args=(n, a.device, vs, free_port(), path), nprocs=n, join=True)
        with open(path) as f:
            results.extend(json.load(f))
        os.unlink(path)
    order = [v["label"] for v in PLAN["variants"]]
    results.sort(key=lambda r: order.index(r["label"]))
    obs = {"probe": 1, "source": PLAN["source"], "device": a.device, "torch": torch.__version__.split("+")[0], "ranks": world,
           "model": {"dim": DIM, "heads": HEADS, "layers": LAYERS, "vocab": VOCAB, "seq": SEQ, "batch": BATCH},
           "notReproduced": PLAN["notReproduced"], "variants": results, "skipped": skipped}
    text = json.dumps(obs, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
`;

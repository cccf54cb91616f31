"""NeMo AutoModel oracle worker: a recipe YAML as nemo_automodel 0.7.0 (PyPI, installed with --no-deps into
.oracle-venv/automodel/0.7.0 beside transformers 5.18.0 and megatron-fsdp 0.5.0, its pinned imports) reads it.

Per config (argv[1]: that folder):
- load: `components/config/loader.py` `load_yaml_config` (it resolves every `_target_` at load time). An
  ImportError of a module the oracle does not install (a GPU kernel package, a user module) is a host limit:
  the rest of the config is not compared, with the reason;
- distributed: `recipes/_dist_utils.py` `parse_distributed_section` on the recipe's `distributed` section (the
  strategy dataclass, FSDP2's MixedPrecisionPolicy, Megatron-FSDP's grad_reduce_in_fp32 / preserve_fp32_weights,
  DDP's autocast_dtype, and its ValueError/KeyError refusals);
- storage: the recipe's `model._target_` (NeMoAutoModel*.from_pretrained / from_config) called through the
  loader's own `instantiate`, with what needs a network or CUDA stubbed (the hub revision and config, the device
  mesh, the infrastructure objects) and `_build_model` replaced by a capture of the `torch_dtype` it receives;
  from_pretrained's "auto" is the checkpoint's own dtype: not compared (the oracle has no network);
- mechanism / compute: `components/distributed/fsdp2.py` `fsdp2_sharding_enabled` at the run's world size
  (FSDP2 and its policy are skipped on one rank), else DDP's autocast_dtype, else the storage dtype;
- master copy: the recipe's own optimizer (`optimizer.instantiate(params=...)`) stepped once on a parameter in
  the storage dtype: the state it keeps (an Adam second moment, an fp32 tensor or not) says whether a master copy
  exists.
The product's answers come from `node dist/cli.js check --format json` (run.py passes them in).
"""
from __future__ import annotations

import json
import logging
import os
import sys
import types
import warnings


def main() -> None:
    root = sys.argv[1]
    sys.path.insert(0, root)
    real_out = os.fdopen(os.dup(1), "w")  # the imports print (torchao's notice): stdout carries only the JSON
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    import torch

    torch.cuda.current_device = lambda: 0  # torch.device("cuda", current_device()) in from_pretrained: no CUDA here
    from nemo_automodel.components.config.loader import load_yaml_config
    from nemo_automodel.recipes._dist_utils import _distributed_cfg_to_dict, parse_distributed_section
    from nemo_automodel.components.distributed import fsdp2 as fsdp2_mod
    from nemo_automodel.components.distributed.config import DDPConfig, FSDP2Config, MegatronFSDPConfig
    from nemo_automodel.shared.utils import dtype_from_str
    import nemo_automodel._transformers.auto_model as am
    import transformers

    names = {torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}

    class Captured(Exception):
        pass

    # ---- what from_pretrained / from_config would fetch from the hub or build on CUDA: stubbed
    setup = types.SimpleNamespace(mesh_context=types.SimpleNamespace(device_mesh=None), strategy_config=None,
                                  pipeline_config=None, moe_parallel_config=None, activation_checkpointing=False)
    am._resolve_distributed_setup = lambda **k: setup
    am.instantiate_infrastructure = lambda **k: (None, None, None, None)
    am.get_hf_config = lambda *a, **k: transformers.PretrainedConfig()
    am.get_is_hf_model = lambda *a, **k: True
    am.resolve_sdpa_method = lambda *a, **k: None
    for n in ("_maybe_reject_tie_word_embeddings_flip", "_consume_config_overrides", "_reject_separate_distributed_kwargs"):
        if hasattr(am, n):
            setattr(am, n, lambda *a, **k: None)
    if hasattr(am, "resolve_trust_remote_code"):
        am.resolve_trust_remote_code = lambda *a, **k: False
    am.AutoConfig.resolve_revision = staticmethod(lambda *a, **k: None)

    def capture(cls, *a, torch_dtype=None, **k):
        raise Captured(torch_dtype)

    for cls in (am.NeMoAutoModelForCausalLM, getattr(am, "NeMoAutoModelForSeq2SeqLM", None), getattr(am, "NeMoAutoModelForSequenceClassification", None),
                getattr(am, "NeMoAutoModelForImageTextToText", None), getattr(am, "_BaseNeMoAutoModelClass", None)):
        if cls is not None:
            cls._build_model = classmethod(capture)

    def msg(e: BaseException) -> str:
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]

    def host_limit(e: BaseException) -> str | None:
        t = msg(e)
        if isinstance(e, (ImportError, ModuleNotFoundError)) and ("Cannot resolve target" in t or "No module named" in t):
            return f"a `_target_` the oracle does not install ({t})"
        if isinstance(e, ImportError) and "loaded, but cannot resolve attribute" in t:
            # the product makes no claim about `_target_` paths: a name absent from 0.7.0 is a recipe written
            # for another release (a fork's), not a precision claim
            return f"a `_target_` name absent from nemo_automodel {os.path.basename(root)} (a recipe for another release: {t})"
        if isinstance(e, AssertionError) and "Python script does not exist" in t:
            return f"a `file.py:attr` target resolved against the launch folder ({t})"
        if isinstance(e, OSError) and "huggingface.co" in t:
            return f"the step reads the hub (no network here: {t})"
        if "CUDA" in t or "cuda" in t:
            return f"the step needs CUDA ({t})"
        return None

    import re as _re

    def set_env_for(path: str) -> None:
        """`${VAR}` / `${oc.env:VAR}` in the recipe: the launch sets them (HF_TOKEN, paths); the oracle sets a
        placeholder so that load_yaml_config's env resolution (loader.py resolve_yaml_env_vars) proceeds."""
        try:
            text = open(path, errors="replace").read()
        except OSError:
            return
        for m in _re.finditer(r"\$\{(?:oc\.env:)?([A-Za-z_][A-Za-z0-9_]*)", text):
            os.environ.setdefault(m.group(1), "placeholder")

    def storage_of(cfg):
        """(dtype name | None, oracle text, compared?) from the model's own from_pretrained / from_config."""
        node = cfg.get("model", None)
        tgt = getattr(node, "_target_", None) if node is not None else None
        owner = getattr(tgt, "__self__", None)
        if not (isinstance(owner, type) and owner.__name__.startswith("NeMoAutoModel") and getattr(tgt, "__name__", "") in ("from_pretrained", "from_config")):
            return None, f"model._target_ {getattr(tgt, '__qualname__', tgt)} is not a NeMoAutoModel* from_pretrained/from_config (a custom builder)", False
        kw = {"config": transformers.PretrainedConfig()} if tgt.__name__ == "from_config" else {}
        try:
            node.instantiate(**kw)
            return None, "_build_model was not reached", False
        except Captured as c:
            td = c.args[0]
        except KeyError as e:
            return "refused", msg(e), True
        except BaseException as e:
            lim = host_limit(e)
            return None, lim or msg(e), False if lim else True
        if isinstance(td, str):
            if td == "auto":
                return None, "from_pretrained's torch_dtype auto: the checkpoint's config decides (no network here)", False
            try:
                td = dtype_from_str(td)  # model_init.py: the string passed to _build_model, resolved the same way
            except KeyError as e:
                return "refused", msg(e), True
        return names.get(td, str(td)), f"{names.get(td, td)} (torch_dtype {tgt.__name__} passed to _build_model)", True

    def master_copy(cfg, storage):
        """Steps the recipe's optimizer once on a parameter stored in `storage`: (no fp32 master copy and an Adam
        second moment, text) or (None, reason) when it cannot run here."""
        node = cfg.get("optimizer", None)
        if node is None or not hasattr(node, "_target_"):
            return None, "no optimizer"
        dt = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}.get(storage)
        if dt is None:
            return None, f"storage {storage}"
        p = torch.nn.Parameter(torch.full((8,), 0.5, dtype=dt))
        try:
            opt = node.instantiate(params=[p])
            p.grad = torch.full((8,), 1e-3, dtype=dt)
            opt.step()
        except BaseException as e:
            return None, f"the optimizer does not step on CPU here ({msg(e)})"
        st = opt.state.get(p, {})
        tens = {k: v for k, v in st.items() if torch.is_tensor(v) and v.is_floating_point() and v.numel() > 1}
        fp32 = any(v.dtype == torch.float32 for v in tens.values())
        second = "exp_avg_sq" in st
        return (second and not fp32), f"{type(opt).__name__} state {sorted((k, names.get(v.dtype, str(v.dtype))) for k, v in tens.items())}"

    out = []
    for job in json.load(sys.stdin):
        path, prod, W = job["path"], job["product"], job.get("worldSize")
        claims = []
        diags = prod.get("diagnostics", [])
        errs = sorted(d["code"] for d in diags if d["severity"] == "error")
        prec = prod.get("precision") or {}
        set_env_for(path)
        try:
            cfg = load_yaml_config(path)
            verdict = "loads"
        except BaseException as e:
            cfg, verdict = None, msg(e)
            lim = host_limit(e)
            if lim:
                claims.append({"kind": "automodel.not-compared", "product": errs or "loads", "oracle": verdict, "agree": True, "note": lim})
                out.append({"path": path, "claims": claims})
                continue
        syntax = [c for c in errs if "syntax" in c]
        claims.append({"kind": "automodel.load", "product": syntax or "loads", "oracle": verdict, "agree": bool(syntax) == (cfg is None)})
        if cfg is None:
            out.append({"path": path, "claims": claims})
            continue
        # ---- distributed section
        dist_err = [c for c in errs if c == "automodel/unknown-dtype" and any(d["code"] == c and "mp_policy" in d["message"] for d in diags)]
        try:
            parsed = parse_distributed_section(_distributed_cfg_to_dict(cfg))
            sc, d_verdict = parsed["strategy_config"], "parses"
        except BaseException as e:
            sc, d_verdict = None, msg(e)
        if sc is None and not dist_err and "Unknown strategy" in d_verdict:
            claims.append({"kind": "automodel.distributed", "product": prod.get("mechanism") or "none", "oracle": d_verdict, "agree": True, "note": "the product models no table for a strategy it does not know"})
        else:
            claims.append({"kind": "automodel.distributed", "product": dist_err or "parses", "oracle": d_verdict, "agree": bool(dist_err) == (sc is None)})
        # ---- storage dtype
        storage, s_text, compared = storage_of(cfg)
        model_err = [c for c in errs if c == "automodel/unknown-dtype" and any(d["code"] == c and d["message"].startswith("`model.") for d in diags)]
        if storage == "refused" or model_err:
            claims.append({"kind": "automodel.storage.refused", "product": model_err or "accepts", "oracle": s_text, "agree": bool(model_err) == (storage == "refused")})
            out.append({"path": path, "claims": claims})
            continue
        if not compared:
            claims.append({"kind": "automodel.not-compared", "product": prec.get("paramStorage"), "oracle": s_text, "agree": True, "note": "storage dtype"})
        elif prec:
            claims.append({"kind": "automodel.storage", "product": prec.get("paramStorage"), "oracle": s_text, "agree": prec.get("paramStorage") == storage})
        if sc is None or not prec:
            out.append({"path": path, "claims": claims})
            continue
        # ---- mechanism, compute, reduce at the run's world size
        eff = storage if compared else prec.get("paramStorage")  # the product's storage where the checkpoint decides
        if W:
            fsdp2_mod.get_world_size_safe = lambda: W
            mesh = types.SimpleNamespace(size=lambda: W)
            if isinstance(sc, FSDP2Config):
                on = fsdp2_mod.fsdp2_sharding_enabled(mesh)
                pol = sc.mp_policy
                mech = "fully_shard" if on else "none"
                comp = (names.get(pol.param_dtype) if on and pol.param_dtype is not None else eff)
                red = names.get(pol.reduce_dtype) if pol.reduce_dtype is not None else (names.get(pol.param_dtype) or eff)
                how = f"FSDP2Config.mp_policy {pol}; fsdp2_sharding_enabled({W}) = {on}"
            elif isinstance(sc, DDPConfig):
                mech = "autocast" if sc.autocast_dtype is not None else "none"
                comp = names.get(sc.autocast_dtype) if sc.autocast_dtype is not None else eff
                red, how = eff, f"DDPConfig.autocast_dtype {sc.autocast_dtype}; DDP all-reduces grads in their dtype"
            elif isinstance(sc, MegatronFSDPConfig):
                mech, comp = "none", eff
                red, how = ("float32" if sc.grad_reduce_in_fp32 else eff), f"MegatronFSDPConfig.grad_reduce_in_fp32 {sc.grad_reduce_in_fp32}"
            else:
                mech = comp = red = None
                how = type(sc).__name__
            if mech is not None:
                claims.append({"kind": "automodel.mechanism", "product": prod.get("mechanism"), "oracle": f"{mech} ({how})", "agree": prod.get("mechanism") == mech, "note": f"world size {W}"})
                claims.append({"kind": "automodel.compute", "product": prec.get("compute"), "oracle": f"{comp} ({how})", "agree": prec.get("compute") == comp, "note": f"world size {W}"})
                if W > 1:
                    claims.append({"kind": "automodel.reduce", "product": prec.get("gradReduce"), "oracle": f"{red} ({how})", "agree": prec.get("gradReduce") == red, "note": f"world size {W}"})
        else:
            claims.append({"kind": "automodel.not-compared", "product": prod.get("mechanism"), "oracle": "no world size", "agree": True, "note": "mechanism/compute: the world size decides whether FSDP2 applies"})
        # ---- master copy: the recipe's own optimizer on the stored dtype
        if isinstance(sc, MegatronFSDPConfig) and sc.preserve_fp32_weights:
            claims.append({"kind": "automodel.not-compared", "product": "", "oracle": "Megatron-FSDP keeps fp32 main weights outside the optimizer", "agree": True, "note": "master copy"})
        elif eff:
            no_master, o_text = master_copy(cfg, eff)
            fired = any(d["code"] == "automodel/bf16-weights-adam" for d in diags)
            if no_master is None:
                claims.append({"kind": "automodel.not-compared", "product": fired, "oracle": o_text, "agree": True, "note": "master copy"})
            else:
                claims.append({"kind": "automodel.no-master-copy", "product": fired, "oracle": f"{no_master}: {o_text}", "agree": fired == no_master, "note": f"storage {eff}"})
        out.append({"path": path, "claims": claims})
    json.dump(out, real_out)
    real_out.flush()


if __name__ == "__main__":
    main()

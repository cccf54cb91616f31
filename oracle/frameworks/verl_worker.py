"""verl run scripts and trainer YAMLs against verl's own config code (stdin: jobs [{path, worldSize, product}];
argv: the --target folder verl 0.9.1, hydra-core and antlr4 are installed in; stdout: [{path, claims}]).

For a run script (`python3 -m verl.trainer.main_ppo key=value …`, read by shell_args.py, the oracle's own
reader) or one of verl's own trainer YAMLs, the worker:
  1. composes the config with Hydra from verl's packaged verl/trainer/config (the `--config-name` the script names,
     default ppo_trainer as main_ppo.py's @hydra.main says) and the script's overrides, in Hydra's order;
  2. runs main_ppo.main's validate_config(config, need_reference_policy(config), need_critic(config))
     (verl/utils/config.py:88, verl/trainer/main_ppo.py:177) and omega_conf_to_dataclass on the actor's
     fsdp_config / megatron engine config (the config dataclasses' __post_init__ checks);
  3. for an FSDP actor, the dtypes verl's own code derives: PrecisionType.to_dtype(model_dtype) (the resident
     weights, verl/utils/torch_dtypes.py) and the MixedPrecision that FSDPEngine._build_fsdp_module builds from
     `mixed_precision` (workers/engine/fsdp/transformer_impl.py:385-401; run on a stand-in `self` holding only
     the engine config, stopped at MixedPrecision(...) before any model or process group is needed).
verl's package imports ray, tensordict, transformers, codetiming and orjson at module level; none of them takes
part in these steps, so they are inert stand-ins here (sys.modules), as the torchtitan worker stubs triton.

Overrides of keys verl 0.9.1's config lacks (a fork's own sections, `env.*`, `custom_reward_function.*` of a
later release) make Hydra refuse the whole launch; the worker drops those that are not precision keys (each named
in the claim's note) and keeps refusals of the precision keys the product reads (`fsdp_config`, `mixed_precision`,
`model_dtype`, `dtype`, `strategy`, `optim`).
"""
from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import re
import sys
import types
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shell_args  # noqa: E402

ROOT = os.path.abspath(sys.argv[1])
VERSION = next((d[len("verl-"):-len(".dist-info")] for d in os.listdir(ROOT) if d.startswith("verl-") and d.endswith(".dist-info")), "?")
STUBS = {"ray", "tensordict", "transformers", "codetiming", "orjson", "peft"}


class _Meta(type):
    def __call__(cls, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return _Meta("inst", (), {})

    def __getattr__(cls, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return _Meta(n, (), {})

    def __iter__(cls):
        return iter(())

    def __getitem__(cls, k):
        return cls


class _Mod(types.ModuleType):
    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return _Meta(n, (), {})


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _Mod(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, m):
        pass


sys.meta_path.insert(0, _Finder())
sys.path.insert(0, ROOT)

import torch  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from hydra.core.global_hydra import GlobalHydra  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
    from verl.trainer.ppo.utils import need_critic, need_reference_policy  # noqa: E402
    from verl.utils.config import omega_conf_to_dataclass, validate_config  # noqa: E402
    from verl.utils.torch_dtypes import PrecisionType  # noqa: E402
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngine  # noqa: E402

CONFIG_DIR = os.path.join(ROOT, "verl", "trainer", "config")
PRECISION_KEY = re.compile(r"mixed_precision|model_dtype|megatron\.dtype$|rollout\.dtype$|(?:^|\.)strategy$")
PRECISION_ERR = re.compile(r"^compose:|dtype|precision|strategy", re.I)
ENTRY = re.compile(r"^verl\.trainer\.main_ppo$|(?:^|/)verl/trainer/main_ppo\.py$")
NAMES = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}
# The product's error codes that say "the launch stops" (the rest are warnings / information).
LAUNCH = {"verl/unknown-dtype", "verl/unsupported-megatron-dtype", "verl/mixed-precision-needs-plus"}


class _Stop(Exception):
    pass


_MISSING = object()
BASE: dict = {}


def script_overrides(text: str):
    """(config name, overrides) of the first main_ppo launch, or None."""
    for ws, _env in shell_args.commands(text):
        at = next((i for i, w in enumerate(ws) if ENTRY.search(w)), None)
        if at is None:
            continue
        name, ov, path = "ppo_trainer", [], None
        i = at + 1
        while i < len(ws):
            w = ws[i]
            if w in ("--config-name", "--config-path", "-cn", "-cp") and i + 1 < len(ws):
                if w in ("--config-name", "-cn"):
                    name = ws[i + 1]
                else:
                    path = ws[i + 1]
                i += 2
                continue
            m = re.match(r"^--config-(name|path)=(.*)$", w)
            if m:
                name, path = (m.group(2), path) if m.group(1) == "name" else (name, m.group(2))
            elif re.match(r"^[+~]{0,2}[A-Za-z_][\w.\-/@]*=", w) or re.match(r"^~[A-Za-z_][\w.]*$", w):
                ov.append(w)
            i += 1
        # verl's own examples say --config-path=config (main_ppo.py's folder): its packaged configs
        if path and re.fullmatch(r"(?:\./)?(?:(?:\S*/)?verl/trainer/)?config/?", path):
            path = None
        return name.removesuffix(".yaml"), ov, path
    return None


def clean(ov: str) -> str:
    """An override whose value still holds an unset `$VAR` gets a plain placeholder (Hydra's grammar refuses `$`)."""
    k, _, v = ov.partition("=")
    return f"{k}={'UNSET_VARIABLE' if '$' in v else v}" if "$" in v else ov


def key_of(ov: str) -> str:
    return ov.split("=", 1)[0].lstrip("+~")


def compose_with(name: str, overrides: list[str]):
    """Hydra's compose; overrides of non-precision keys that verl 0.9.1 lacks are dropped one at a time."""
    dropped = []
    ov = [clean(o) for o in overrides]
    # the keys the base config lacks, dropped at once where they are not precision keys (the loop below would
    # find them one compose at a time)
    base = BASE.get(name)
    if base is None:
        GlobalHydra.instance().clear()
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
            base = BASE[name] = compose(config_name=name)
    for o in list(ov):
        k = key_of(o)
        if (not o.startswith(("+", "~")) and not re.search(r"[/@]", k) and not PRECISION_KEY.search(k)
                and OmegaConf.select(base, k, default=_MISSING, throw_on_resolution_failure=False) is _MISSING):
            ov.remove(o)
            dropped.append(k)
    for _ in range(64):
        GlobalHydra.instance().clear()
        try:
            with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
                return compose(config_name=name, overrides=ov), dropped, None
        except Exception as e:  # noqa: BLE001
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            m = re.search(r"override '([^']+)'|Key '([^']+)' is not in struct|key '([^']+)'|Could not (?:override|append to|delete) '([^']+)'", str(e))
            bad = next((g for g in (m.groups() if m else ()) if g), None)
            hit = [o for o in ov if bad and (key_of(o) == bad or key_of(o).startswith(bad + "."))] if bad else []
            if not hit:
                # a grammar error names no key: the override whose text Hydra quotes
                hit = [o for o in ov if o in str(e)]
            if hit and not PRECISION_KEY.search(key_of(hit[0])):
                ov.remove(hit[0])
                dropped.append(key_of(hit[0]))
                continue
            return None, dropped, f"{type(e).__name__}: {msg[:240]}"
    return None, dropped, "too many overrides verl 0.9.1 lacks"


def step(fn):
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return fn(), None
    except Exception as e:  # noqa: BLE001  the framework's own exception is the answer
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        # hydra's InstantiationException says which target, the next line the dataclass's own error
        return None, f"{type(e).__name__}: {' '.join(lines[:2])[:300]}"


def fsdp_dtypes(fsdp_cfg) -> dict:
    """The actor's weights and MixedPrecision, from verl's own code on the composed fsdp_config."""
    import torch.distributed.fsdp as fsdp_mod

    eng = omega_conf_to_dataclass(fsdp_cfg)
    seen = {}
    real = fsdp_mod.MixedPrecision

    def record(param_dtype=None, reduce_dtype=None, buffer_dtype=None, **_):
        seen.update(param=param_dtype, reduce=reduce_dtype, buffer=buffer_dtype)
        raise _Stop()

    fsdp_mod.MixedPrecision = record
    try:
        FSDPEngine._build_fsdp_module(types.SimpleNamespace(engine_config=eng), None)
    except _Stop:
        pass
    finally:
        fsdp_mod.MixedPrecision = real
    return {"storage": NAMES.get(PrecisionType.to_dtype(eng.model_dtype), str(PrecisionType.to_dtype(eng.model_dtype))),
            "param": NAMES.get(seen["param"]), "reduce": NAMES.get(seen["reduce"]), "buffer": NAMES.get(seen["buffer"])}


def check(job: dict) -> list[dict]:
    p = job["product"]
    path = job["path"]
    launch = sorted({d["code"] for d in p.get("diagnostics", []) if d["code"] in LAUNCH})
    text = open(path, errors="replace").read()
    if path.endswith((".yaml", ".yml")):
        if os.path.abspath(path).startswith(os.path.abspath(CONFIG_DIR)) and os.path.dirname(os.path.abspath(path)) == os.path.abspath(CONFIG_DIR):
            name, ov, cpath = os.path.splitext(os.path.basename(path))[0], [], None
        else:
            return [dict(kind="verl.not-compared", product=launch or "accepts", oracle="a YAML outside verl's packaged config folder", agree=True, version=VERSION,
                         note="composed only with the fork's own config folder")]
    else:
        so = script_overrides(text)
        if so is None:
            return [dict(kind="verl.not-compared", product=launch or "accepts", oracle="the oracle's shell reader found no verl.trainer.main_ppo launch", agree=True, version=VERSION,
                         note="another entry point, or one built at run time")]
        name, ov, cpath = so
    if cpath or not os.path.isfile(os.path.join(CONFIG_DIR, name + ".yaml")):
        return [dict(kind="verl.not-compared", product=launch or "accepts", oracle=f"--config-name {name}" + (f" --config-path {cpath}" if cpath else "") + ": not one of verl's packaged trainer configs",
                     agree=True, version=VERSION, note="the fork's own config folder")]
    cfg, dropped, err = compose_with(name, ov)
    note = f"dropped overrides of keys verl {VERSION} lacks: {', '.join(dropped[:6])}{' …' if len(dropped) > 6 else ''}" if dropped else ""
    errs = [f"compose: {err}"] if err else []
    strategy = None
    if cfg is not None:
        _, e = step(lambda: validate_config(config=cfg, use_reference_policy=need_reference_policy(cfg), use_critic=need_critic(cfg)))
        if e:
            errs.append(f"validate_config: {e}")
        strategy = cfg.actor_rollout_ref.actor.strategy
        if strategy in ("fsdp", "fsdp2"):
            dts, e = step(lambda: fsdp_dtypes(cfg.actor_rollout_ref.actor.fsdp_config))
        elif strategy == "megatron":
            dts, e = step(lambda: omega_conf_to_dataclass(cfg.actor_rollout_ref.actor.megatron))
            dts = None
        else:
            dts, e = None, None
        if e:
            errs.append(f"actor engine config: {e}")
    host = next((x for x in errs if "HFModelConfig" in x), None)
    if host:
        return [dict(kind="verl.not-compared", product=launch or "accepts", oracle=host, agree=True, version=VERSION,
                     note="HFModelConfig reads the model's config.json from the Hub: the oracle runs offline, without transformers")]
    # validate_config's batch-size checks (train_batch_size vs ppo_mini_batch_size, micro batch sizes unset, a size
    # from an unset variable) are no precision claim: the product does not model batch sizes (named in docs/oracle.md)
    if errs and not launch and not PRECISION_ERR.search(errs[0]):
        return [dict(kind="verl.not-compared", product="accepts", oracle=errs[0], agree=True, version=VERSION,
                     note="a batch-size check of validate_config: outside the product's precision model" + (f"; {note}" if note else ""))]
    claims = [dict(kind="verl.launch", product=launch or "accepts", oracle=errs[0] if errs else "accepts", agree=bool(launch) == bool(errs), version=VERSION, note=note)]
    if errs or launch or cfg is None or strategy not in ("fsdp", "fsdp2") or not dts:
        return claims
    prec = p.get("precision") or {}
    claims.append(dict(kind="verl.actor.storage", product=prec.get("paramStorage"), oracle=f"{dts['storage']} (PrecisionType.to_dtype(fsdp_config.model_dtype))",
                       agree=prec.get("paramStorage") == dts["storage"], version=VERSION))
    claims.append(dict(kind="verl.actor.compute", product=prec.get("compute"), oracle=f"{dts['param']} (FSDPEngine's MixedPrecision.param_dtype, the autocast dtype)",
                       agree=prec.get("compute") == dts["param"], version=VERSION))
    if (p.get("worldSize") or {}).get("value", 0) != 1:
        claims.append(dict(kind="verl.actor.reduce", product=prec.get("gradReduce"), oracle=f"{dts['reduce']} (FSDPEngine's MixedPrecision.reduce_dtype)",
                           agree=prec.get("gradReduce") == dts["reduce"], version=VERSION))
    return claims


def main() -> None:
    jobs = json.load(sys.stdin)
    out = []
    for j in jobs:
        try:
            out.append({"path": j["path"], "claims": check(j)})
        except Exception as e:  # noqa: BLE001
            out.append({"path": j["path"], "claims": [dict(kind="verl.worker", product="a verdict", oracle=f"{type(e).__name__}: {e}"[:300], agree=False, version=VERSION)]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

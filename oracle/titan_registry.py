"""torchtitan 0.3.0 Python config registries against the product's per-function answers (`configFunctions`).

Called from oracle/run.py (check(...)). The files: every config_registry.py of the installed 0.3.0 wheel, and
of the corpus's wild2026 torchtitan forks, and the corner cases written for this check (oracle/fixtures/titan3/:
TP-only, PP-only, DDP+TP, EP that does not divide, graph_trainer's wrapper around a base of our own; flags/: functions
launched by run scripts with flags). torchtitan decides each function in frameworks/titan_registry_worker.py, with
the `--section.option value` flags of the run script that launches it (the product's `launch.flags`) parsed by
its own ConfigManager (tyro) beside --module/--config;
this file only compares. Claims are named "<file>::<function>". Functions torchtitan cannot run here (a module
that does not import on CPU, a model the wheel lacks) are not compared: they go to out/titan-registry.json with
torchtitan's reason.
"""
from __future__ import annotations

import json
import os

RELEASE = "0.3.0"
DIMS_PREFIX = "parallel-dims-"
MESH_CODES = {"ep-without-fsdp-mesh"}
# the product's claim that tyro rejects a run-script flag (rules/launch-flag-rejected.ts)
FLAG_REJECTED = ("invalid-value", "The launch fails: tyro rejects")


def _flag_rejected(p: dict) -> list[str]:
    return [d["message"] for d in p.get("diagnostics", []) if d["severity"] == "error" and d["code"] == FLAG_REJECTED[0] and d["message"].startswith(FLAG_REJECTED[1])]


def _registries(venv: str, corpus: str | None, root: str) -> list[tuple[str, str]]:
    """(path relative to the repo root, dotted module name) of every config_registry.py."""
    tops = [os.path.join(venv, "torchtitan", RELEASE)]
    wild = os.path.join(corpus or "", "wild2026")
    if corpus and os.path.isdir(wild):
        tops += [os.path.join(wild, d) for d in sorted(os.listdir(wild)) if d.endswith("__torchtitan")]
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "titan3")
    tops += [os.path.join(fixtures, d) for d in sorted(os.listdir(fixtures)) if os.path.isdir(os.path.join(fixtures, d, "torchtitan"))]
    out = []
    for top in tops:
        pkg = os.path.join(top, "torchtitan")
        for dp, dn, fn in os.walk(pkg):
            dn.sort()
            if "config_registry.py" in fn:
                rel_mod = os.path.relpath(os.path.join(dp, "config_registry"), top).replace(os.sep, ".")
                out.append((os.path.relpath(os.path.join(dp, "config_registry.py"), root), rel_mod))
    return out


def check(led, venv: str, corpus: str | None, root: str, product, worker, out_dir: str) -> None:
    install = os.path.join(venv, "torchtitan", RELEASE)
    if not os.path.isdir(os.path.join(install, "torchtitan")):
        return
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_titan3.json")) as fh:
        led.known.extend(json.load(fh))  # this check's documented differences, kept apart from run.py's list
    regs = _registries(venv, corpus, root)
    prod = product([p for p, _ in regs], "--torchtitan-version", f"v{RELEASE}")
    jobs, pfn = [], {}
    for path, mod in regs:
        fns = (prod.get(path) or {}).get("configFunctions") or []
        by_ws: dict[int, list[str]] = {}
        flags: dict[str, list[str]] = {}
        for cf in fns:
            pfn[(path, cf["name"])] = cf
            by_ws.setdefault(int((cf.get("worldSize") or {}).get("value") or 8), []).append(cf["name"])
            if (cf.get("launch") or {}).get("flags"):
                flags[cf["name"]] = cf["launch"]["flags"]  # the run script's flags as the product read them
        for ws, names in sorted(by_ws.items()):
            job = {"path": path, "module": mod, "functions": names, "worldSize": ws}
            if any(n in flags for n in names):
                job["flags"] = {n: flags[n] for n in names if n in flags}
            jobs.append(job)
    not_compared = []
    for o in worker("titan_registry_worker.py", [install], jobs):
        f = f"{o['path']}::{o['function']}"
        p = pfn[(o["path"], o["function"])]
        if "load" in o:
            not_compared.append({"function": f, "reason": o["load"]["error"]})
            continue
        codes = {d["code"] for d in p.get("diagnostics", []) if d["severity"] == "error"}
        if o.get("flags"):
            # the run script's flags, parsed by torchtitan's ConfigManager (tyro) with --module/--config: does the
            # launch get past the CLI (tyro exits 2 on a value outside a Literal or a field the config lacks)?
            p_rej = _flag_rejected(p)
            o_rej = o["parse"].get("exit") == 2
            if o_rej or o["parse"]["ok"]:
                led.claim("titan3.flags", f, p_rej or "parsed", o["parse"].get("error") if o_rej else "parsed", bool(p_rej) == o_rej, RELEASE,
                          note=f"{p['launch']['script']}: {' '.join(o['flags'])}")
                if o_rej or p_rej:
                    continue  # the launch stops at the CLI (on one side at least): no degree or dtype of it is compared
        if not o["parse"]["ok"]:
            not_compared.append({"function": f, "reason": "torchtitan's ConfigManager: " + o["parse"]["error"]})
            continue
        p_dims = sorted(c for c in codes if c.startswith(DIMS_PREFIX))
        o_dims_err = not o["dims"]["ok"]
        # 0.3.0's ParallelDims._validate checks the dense product only (parallel_dims.py:170-189); EP that does not
        # divide dp_shard*cp*tp fails in build_mesh (efsdp = fsdp*tp//ep, parallel_dims.py:279, then the unflatten).
        # The launch fails either way: a product dims error agrees with a mesh that torchtitan cannot build.
        o_mesh_err = "mesh" in o and not o["mesh"]["ok"]
        o_launch = o["dims"].get("error") or (o["mesh"].get("error") if o_mesh_err and p_dims else "valid")
        led.claim("titan3.dims", f, p_dims or "valid", o_launch, bool(p_dims) == (o_dims_err or (o_mesh_err and bool(p_dims))), RELEASE)
        if p_dims and o_mesh_err:
            continue  # both say the launch fails
        if not (o_dims_err or p_dims):
            resolved = o["dims"]["resolved"]
            pl = {k: p["parallel"].get(k) for k in resolved} if p.get("parallel") else None
            led.claim("titan3.degrees", f, pl, resolved, pl == resolved, RELEASE)
            p_mesh = sorted(codes & MESH_CODES)
            o_mesh_err = not o["mesh"]["ok"]
            led.claim("titan3.mesh", f, p_mesh or "builds", o["mesh"].get("error") or o["mesh"].get("dims"), bool(p_mesh) == o_mesh_err, RELEASE)
        # the mixed-precision facts: the mechanism (FSDP's MixedPrecisionPolicy, on torchtitan's always-kept
        # fsdp/dp_shard axis) and the parsed config's param / reduce dtypes against compute / gradReduce
        if o_dims_err:
            continue  # ParallelDims refuses the layout: the run never trains, so no dtype of it is compared
        mp = o["mp"]
        prec = p.get("precision") or {}
        o_mech = "fully_shard" if mp.get("fsdp_axis") else "none"
        if "fsdp_axis" in mp:
            led.claim("titan3.mechanism", f, p.get("mechanism"), o_mech, p.get("mechanism") == o_mech, RELEASE)
        led.claim("titan3.param", f, prec.get("compute"), mp["param"], prec.get("compute") == mp["param"], RELEASE)
        led.claim("titan3.reduce", f, prec.get("gradReduce"), mp["reduce"], prec.get("gradReduce") == mp["reduce"], RELEASE)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "titan-registry.json"), "w") as fh:
        json.dump({"release": RELEASE, "files": len(regs), "functions": len(pfn), "not_compared": not_compared}, fh, indent=1)

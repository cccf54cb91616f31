"""Differential oracle: Precision Lens's answers against the frameworks' own code.

  .oracle-venv/bin/python oracle/run.py [--corpus DIR] [--out DIR]

For every config in examples/, test/fixtures/ and the corpus (../shared/corpus), it runs
`node dist/cli.js check --format json` and asks the framework itself (each framework in a worker process of
its own, see oracle/frameworks/), then compares claim by claim. Disagreements listed in
oracle/known_differences.json (each with its reason) are reported as documented; any other disagreement
fails the run (exit 1). Writes oracle/out/agreement.json and oracle/out/agreement.md.
"""
from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.environ.get("ORACLE_VENV", os.path.join(ROOT, ".oracle-venv"))
# The product under test: this checkout's build, or a mutant's (oracle/mutants.py builds each into its own dist/).
CLI = os.path.join(os.environ.get("PL_PRODUCT_DIST", os.path.join(ROOT, "dist")), "cli.js")
EXTS = (".toml", ".yaml", ".yml", ".json", ".sh")
# Launch scripts of the frameworks the product reads from shell (Megatron-LM flags, verl's Hydra overrides): the
# oracle's own corner cases (oracle/cases/) and, where present on this machine, the tune half of the configs
# collected from public repositories (PL_COLLECTED, default ../collected beside the checkout's parent: never in
# the repository; the held half is never read). Only scripts that launch pretrain_gpt.py or verl.trainer.main_*.
COLLECTED = os.environ.get("PL_COLLECTED", os.path.join(ROOT, "..", "..", "collected"))
PER_REPO = {"verl": 8}
LAUNCH = re.compile(r"pretrain_gpt\.py|verl\.trainer\.main_")

# The product's error codes that say "ConfigManager refuses the file" (the schema family and TOML syntax).
PARSE_CODES = {"unknown-key", "unknown-section", "moved-key", "removed-key", "toml-syntax", "extension-section-without-module", "module-not-in-release"}
DIMS_CODES_PREFIX = "parallel-dims-"
MESH_CODES = {"ep-without-fsdp-mesh"}
# The product's error codes that say "the model's parallelize_fn / pipelining_fn raises".
PARALLELIZE_CODES = {"model-not-in-release", "ddp-with-other-parallelism", "ep-needs-tp-mesh", "pp-microbatch", "pp-1f1b-microbatches", "cp-attention-unsupported", "cpu-offload-without-fsdp", "float8-grouped-mm-pp-cp",
                     "memory-budget-without-compile", "mx-tp-compile", "unknown-converter", "quantize-gpu-unsupported", "compile-required"}
# Exceptions of a torchtitan step that are CPU limits of the oracle, not the config's: not compared, with the reason.
CPU_LIMITS = [(r"Torch not compiled with CUDA|CUDA|cuda", "the step needs CUDA (the oracle runs on CPU)"),
              (r"triton", "the step needs triton (GPU-only; stubbed inert on CPU)")]


def titan_dtype_claims(led: Ledger, f: str, rel: str, p: dict, o: dict, b: dict) -> None:
    """The product's mechanism and dtypes against the modules torchtitan's own parallelize_fn returned."""
    mech = p.get("mechanism")
    prec = p.get("precision") or {}
    coll = (p.get("simulation") or {}).get("collectives") or {}
    amp = o.get("amp", "")
    pol = b.get("policy")
    storage = b["storage"][0] if len(b["storage"]) == 1 else b["storage"]
    # mechanism: an FSDPModule came back (the policy is installed), else maybe_enable_amp's autocast, else none
    o_mech = "fully_shard" if b["fsdp"] else "autocast" if amp.startswith("autocast:") else "none"
    led.claim("titan.mechanism", f, mech, f"{o_mech} (FSDPModule: {b['fsdp']}; maybe_enable_amp: {amp})", mech == o_mech, rel)
    # the product's storage: training.dtype's, plus the parts the model's own code keeps in another dtype (gpt_oss)
    p_st = sorted({prec.get("paramStorage"), *(x["dtype"] for x in prec.get("paramStorageParts") or [])} - {None})
    p_storage = p_st[0] if len(p_st) == 1 else p_st if p_st else prec.get("paramStorage")
    led.claim("titan.storage", f, p_storage, f"{storage} (the parameters of the modules parallelize_fn returned)", p_storage == storage, rel)
    if pol:
        comp, how_c = pol["param"] or storage, "the FSDPModule's MixedPrecisionPolicy.param_dtype"
    elif amp.startswith("autocast:"):
        comp, how_c = amp.split(":", 1)[1], "maybe_enable_amp's torch.autocast fast_dtype"
    else:
        comp, how_c = storage, "no FSDP policy, no autocast: the parameters' dtype"
    led.claim("titan.compute", f, prec.get("compute"), f"{comp} ({how_c})", prec.get("compute") == comp, rel)
    ws = o.get("worldSize") or 1
    if ws > 1:
        if pol:
            red, how_r = pol["reduce"] or pol["param"] or storage, "the FSDPModule's MixedPrecisionPolicy.reduce_dtype"
        elif b["replicate"]:
            red, how_r = storage, "replicate (DDP) all-reduces .grad, in the parameters' dtype"
        else:
            red, how_r = storage, "no data-parallel wrapper: gradients in the parameters' dtype"
        led.claim("titan.reduce", f, prec.get("gradReduce"), f"{red} ({how_r})", prec.get("gradReduce") == red, rel)
    # the collectives the product simulates: DDP's all-reduce iff replicate was applied; FSDP's all-gather and
    # reduce-scatter in the policy's param / reduce dtype
    p_coll = {k: coll.get(k) for k in ("ddp_all_reduce", "fsdp_all_gather", "fsdp_reduce_scatter") if k in coll}
    o_coll = {}
    if b["replicate"]:
        o_coll["ddp_all_reduce"] = storage
    if pol:
        o_coll["fsdp_all_gather"] = pol["param"] or storage
        o_coll["fsdp_reduce_scatter"] = pol["reduce"] or pol["param"] or storage
    if ws > 1:
        led.claim("titan.collectives", f, p_coll, o_coll, p_coll == o_coll, rel)


def collect(corpus: str | None, dirs: list[str] | None = None) -> list[str]:
    """The configs to check: examples/, test/fixtures/ and the corpus, or only the folders given with --files.
    Per-file arguments are the product's own: a `# precision-lens: world-size=N torchtitan-version=vX` line in
    the file (or `"//"`-free JSON: a sidecar `<file>.precision-lens` holding that line, see --files)."""
    roots = [os.path.join(ROOT, "examples"), os.path.join(ROOT, "test", "fixtures")] if not dirs else [os.path.abspath(d) for d in dirs]
    if corpus and os.path.isdir(corpus) and not dirs:
        roots.append(corpus)
    if not dirs:
        roots.append(os.path.join(HERE, "cases"))
    files = []
    for r in roots:
        for dp, dn, fn in os.walk(r):
            dn.sort()
            for f in sorted(fn):
                if f.endswith(EXTS) and not f.startswith("sarif-schema"):
                    files.append(os.path.relpath(os.path.join(dp, f), ROOT))
    if not dirs:
        files += collected_scripts()
        # verl's own trainer configs, from the installed package (oracle/setup.sh)
        cfg = os.path.join(VENV, "verl", "0.9.1", "verl", "trainer", "config")
        if os.path.isdir(cfg):
            files += [os.path.relpath(os.path.join(cfg, f), ROOT) for f in sorted(os.listdir(cfg)) if f.endswith(".yaml")]
    return files


def collected_scripts() -> list[str]:
    """The tune half of the collected Megatron-LM and verl launch scripts (see COLLECTED), when present."""
    out = []
    for fam in ("megatron", "verl"):
        r = os.path.join(COLLECTED, fam, "tune")
        per_repo: dict[str, int] = collections.Counter()
        for dp, dn, fn in os.walk(r):
            dn.sort()
            repo = os.path.relpath(dp, r).split(os.sep)[0]
            for f in sorted(fn):
                # verl forks hold hundreds of near-identical run scripts: the first PER_REPO of each repository
                if f.endswith(".sh") and per_repo[repo] < PER_REPO.get(fam, 10**6):
                    full = os.path.join(dp, f)
                    try:
                        if LAUNCH.search(open(full, errors="replace").read(400_000)):
                            out.append(os.path.relpath(full, ROOT))
                            per_repo[repo] += 1
                    except OSError:
                        pass
    return out


def product(files: list[str], *extra: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    # chunks keep the command line bounded
    for i in range(0, len(files), 200):
        r = subprocess.run(["node", CLI, "check", "--format", "json", *extra, "--", *files[i : i + 200]],
                           cwd=ROOT, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise SystemExit(f"precision-lens check failed ({r.returncode}): {r.stderr[-2000:]}")
        for f in json.loads(r.stdout)["files"]:
            out[f["path"]] = f
    return out


def sidecar_args(path: str) -> list[str]:
    """`<file>.precision-lens` beside a config: one `precision-lens: key=value ...` line (the directive JSON
    files cannot carry as a comment), turned into the CLI's options."""
    side = os.path.join(ROOT, path) + ".precision-lens"
    if not os.path.isfile(side):
        return []
    out = []
    for tok in open(side).read().replace("precision-lens:", " ").replace("#", " ").split():
        k, _, v = tok.partition("=")
        if k in ("world-size", "torchtitan-version", "gpu") and v:
            out += [f"--{k}", v]
    return out


def stated_world_size(path: str) -> int | None:
    """The world size the file's author stated for it (`# precision-lens: world-size=N` in the file, or the
    sidecar's line), read by the oracle itself: the frameworks run at it, so a product that misreads it disagrees.
    None when the file states none (then the frameworks run at the product's resolved world size)."""
    full = os.path.join(ROOT, path)
    texts = []
    if os.path.isfile(full + ".precision-lens"):
        texts.append(open(full + ".precision-lens").read())
    if not path.endswith(".json"):
        try:
            texts.append(open(full, errors="replace").read(200_000))
        except OSError:
            pass
    for t in texts:
        for line in t.splitlines():
            if "precision-lens:" in line and line.lstrip().startswith(("#", "precision-lens:")):
                m = re.search(r"(?:^|[\s:])world-size=(\d{1,7})(?![\d@])", line.split("precision-lens:", 1)[1])
                if m and int(m.group(1)) > 0:
                    return int(m.group(1))
    return None


def world_size(path: str, entry: dict, default: int | None = None) -> int | None:
    return stated_world_size(path) or (entry.get("worldSize") or {}).get("value") or default


def product_with_sidecars(files: list[str]) -> dict[str, dict]:
    plain = [f for f in files if not sidecar_args(f)]
    out = product(plain) if plain else {}
    for f in files:
        extra = sidecar_args(f)
        if extra:
            out.update(product([f], *extra))
    return out


def errors(entry: dict) -> list[dict]:
    return [d for d in entry.get("diagnostics", []) if d["severity"] == "error"]


def worker(script: str, args: list[str], jobs: list[dict], env_extra: dict | None = None) -> list[dict]:
    """Runs one framework worker on its jobs. With ORACLE_CACHE=DIR (oracle/mutants.py sets it), a worker's answer
    is kept under the hash of its script, arguments and jobs: the frameworks' answers to the same questions do
    not change from one product mutant to the next, only the product's side does (and the jobs it shapes)."""
    cache = os.environ.get("ORACLE_CACHE")
    key = None
    if cache:
        import hashlib
        h = hashlib.sha256(json.dumps([script, args, jobs, env_extra], sort_keys=True).encode())
        h.update(open(os.path.join(HERE, "frameworks", script), "rb").read())
        key = os.path.join(cache, f"{script}-{h.hexdigest()[:24]}.json")
        if os.path.exists(key):
            with open(key) as fh:
                return json.load(fh)
    py = os.path.join(VENV, "bin", "python")
    env = dict(os.environ, PYTHONWARNINGS="ignore", **(env_extra or {}))
    r = subprocess.run([py, os.path.join(HERE, "frameworks", script), *args], input=json.dumps(jobs), cwd=ROOT,
                       capture_output=True, text=True, env=env, timeout=1200)
    if r.returncode != 0:
        raise RuntimeError(f"{script} {' '.join(args)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    if key:
        os.makedirs(os.path.dirname(key), exist_ok=True)
        with open(key, "w") as fh:
            fh.write(r.stdout)
    return json.loads(r.stdout)


class Ledger:
    def __init__(self, known: list[dict]):
        self.known = known
        self.claims: list[dict] = []

    def claim(self, kind: str, path: str, product, oracle, agree: bool, version: str | None = None, note: str = ""):
        c = {"kind": kind, "path": path, "product": product, "oracle": oracle, "agree": bool(agree)}
        if version:
            c["version"] = version
        if note:
            c["note"] = note
        if not agree:
            for k in self.known:
                if (k["kind"] == kind and fnmatch.fnmatch(path, k.get("path", "*")) and (not k.get("version") or k["version"] == version)
                        and re.search(k.get("oracle", ""), json.dumps(oracle)) and re.search(k.get("product", ""), json.dumps(product))):
                    c["documented"] = k["name"]
                    break
        self.claims.append(c)


# ---------------------------------------------------------------- torchtitan

TITAN_RELEASES = ["0.1.0", "0.2.0", "0.2.1", "0.2.2"]
# --titan-releases narrows them (oracle/mutants.py: the releases its mutants need)
TITAN_ONLY = [r for r in os.environ.get("ORACLE_TITAN_RELEASES", "").split(",") if r]


def check_torchtitan(files: list[str], base: dict[str, dict], led: Ledger, installs: list[dict]) -> None:
    titan = [f for f in files if base[f].get("framework") == "torchtitan"]
    for rel in [r for r in TITAN_RELEASES if not TITAN_ONLY or r in TITAN_ONLY]:
        root = os.path.join(VENV, "torchtitan", rel)
        if not os.path.isdir(os.path.join(root, "torchtitan")):
            continue
        prod = product(titan, "--torchtitan-version", f"v{rel}")
        jobs = [{"path": f, "worldSize": world_size(f, prod[f], 8)} for f in titan]
        verdicts = {v["path"]: v for v in worker("titan_worker.py", [root, rel], jobs)}
        for f in titan:
            p, o = prod[f], verdicts[f]
            errs = errors(p)
            codes = {d["code"] for d in errs}
            # 1. parse
            p_rej = bool(codes & PARSE_CODES)
            o_rej = not o["parse"]["ok"]
            led.claim("titan.parse", f, sorted(codes & PARSE_CODES) or "accepts", o["parse"].get("error", "accepts"), p_rej == o_rej, rel)
            if o_rej:
                m = re.search(r"data: \{(.*)\}", o["parse"].get("error", ""))
                if m and p_rej:
                    names = re.findall(r"'([^']+)'", m.group(1))
                    # the names may be in a warning (an extension table: the module could come from the command line)
                    text = " ".join(d["message"] for d in p.get("diagnostics", []))
                    missing = [n for n in names if n not in text]
                    led.claim("titan.parse.keys", f, "names " + ", ".join(names) if not missing else f"does not name {missing}", o["parse"]["error"], not missing, rel)
                continue
            if p_rej:
                continue
            # 2. ParallelDims validation at the product's world size
            # (ddp-with-other-parallelism is raised later, by the model's parallelize, not by ParallelDims)
            p_dims = sorted(c for c in codes if c.startswith(DIMS_CODES_PREFIX))
            o_dims_err = not o["dims"]["ok"]
            led.claim("titan.dims", f, p_dims or "valid", o["dims"].get("error", "valid"), bool(p_dims) == o_dims_err, rel)
            if o_dims_err or p_dims:
                continue
            resolved = o["dims"]["resolved"]
            pl = {k: p["parallel"].get(k) for k in resolved} if p.get("parallel") else None
            led.claim("titan.degrees", f, pl, resolved, pl == resolved, rel)
            # 3. the device mesh on a fake process group
            p_mesh = sorted(codes & MESH_CODES)
            o_mesh_err = not o["mesh"]["ok"]
            led.claim("titan.mesh", f, p_mesh or "builds", o["mesh"].get("error") or o["mesh"].get("dims"), bool(p_mesh) == o_mesh_err, rel)
            if o_mesh_err or p_mesh:
                continue
            # 4. the release's own model build + parallelize_fn / pipelining_fn (titan_worker.build)
            b = o.get("built")
            if not b:
                continue
            p_par = sorted(codes & PARALLELIZE_CODES)
            if not b["ok"]:
                cpu = next((r for pat, r in CPU_LIMITS if re.search(pat, b["error"])), None)
                if cpu:
                    led.claim("titan.not-compared", f, p_par or "builds", f'{b["error"]} ({b.get("where")})', True, rel, note=cpu)
                    continue
                led.claim("titan.parallelize", f, p_par or sorted(codes) or "builds", f'{b["error"]} ({b.get("where")})', bool(errs), rel)
                continue
            led.claim("titan.parallelize", f, p_par or "builds", "builds", not p_par, rel)
            if errs:
                continue
            titan_dtype_claims(led, f, rel, p, o, b)


# ---------------------------------------------------------------- torch: autocast's op lists

def check_torch(led: Ledger) -> None:
    """The engine's autocast tables (engine/autocast.ts) against the installed torch's registrations."""
    js = 'import("./server/src/core/engine/autocast.ts").then((m) => process.stdout.write(JSON.stringify(m.AUTOCAST_TABLES ?? m.default.AUTOCAST_TABLES)))'
    r = subprocess.run(["node", "--import", "tsx", "-e", js], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"reading the autocast tables failed: {r.stderr[-2000:]}")
    py = os.path.join(VENV, "bin", "python")
    w = subprocess.run([py, os.path.join(HERE, "frameworks", "torch_worker.py")], input=r.stdout, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if w.returncode != 0:
        raise RuntimeError(f"torch_worker.py failed: {w.stderr[-3000:]}")
    res = json.loads(w.stdout)
    for c in res["claims"]:
        led.claim(c["kind"], c["path"], c["product"], c["oracle"], c["agree"], res["torch"].split("+")[0])


# ---------------------------------------------------------------- the probe: a real training step on CPU

# Parts of `probe --compare` that read back what the product put in the script, not what the step observed.
SELF_ECHO = {"mechanism", "dtypes"}


def check_probe(files: list[str], base: dict[str, dict], led: Ledger, out_dir: str) -> dict:
    """`precision-lens probe --device cpu` for every torchtitan config in examples/, run with gloo (world <= 4),
    then `probe --compare` (the CPU prediction: exact) and the CUDA prediction against the same CPU run (every
    difference is a CPU/CUDA difference, and must be named in known_differences.json)."""
    mine = [f for f in files if f.startswith("examples" + os.sep) and base[f].get("framework") == "torchtitan" and base[f].get("mechanism") not in (None, "error")]
    if not mine:
        return {}
    pdir = os.path.join(out_dir, "probe")
    os.makedirs(pdir, exist_ok=True)
    jobs = []
    for f in mine:
        stem = os.path.splitext(os.path.basename(f))[0]
        script = os.path.join(pdir, stem + ".py")
        r = subprocess.run(["node", CLI, "probe", f, "--device", "cpu", "--out", script], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            led.claim("probe.generate", f, "a script", r.stderr.strip()[-300:], False)
            continue
        jobs.append({"path": f, "script": script, "world": 4})
    t0 = time.time()
    titan = os.path.join(VENV, "torchtitan", TITAN_RELEASES[-1])
    res = worker("probe_worker.py", [], jobs, {"PL_PROBE_TORCHTITAN": titan} if os.path.isdir(os.path.join(titan, "torchtitan")) else None)
    seconds = round(time.time() - t0, 1)
    throughput = []
    for item in res["results"]:
        f, obs, how = item["path"], item["observation"], item["parallelizedBy"]
        stem = os.path.splitext(os.path.basename(f))[0] + ("" if how == "probe" else ".torchtitan")
        for device in (("cpu", "cuda") if how == "probe" else ("cpu",)):
            path = os.path.join(pdir, f"{stem}.observed-as-{device}.json")
            with open(path, "w") as fh:
                json.dump(dict(obs, device=device), fh, indent=1)
            r = subprocess.run(["node", CLI, "probe", "--compare", path, f, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
            if r.returncode not in (0, 1):
                led.claim("probe.compare", f, "a comparison", r.stderr.strip()[-300:], False)
                continue
            cmp = json.loads(r.stdout)
            for c in cmp["checked"]:
                head = re.split(r"[. ]", c["claim"], maxsplit=1)[0]
                # probe.mechanism / probe.dtypes echo the product's own plan (the script copies the variant it was
                # given): they compare the product with itself, so they are not claims (issue #32).
                if head in SELF_ECHO:
                    continue
                kind = ("probe." if how == "probe" else "probe.torchtitan-parallelize.") + head if device == "cpu" else "probe.cuda-vs-cpu"
                led.claim(kind, f, c["predicted"], c["observed"], c["agree"], note=f'{c["variant"]}: {c["claim"]}')
            if device == "cpu" and how == "probe":
                throughput += [dict(t, path=f) for t in cmp["throughput"]]
        # (no probe.layout claim: the layout the step ran is the product's plan scaled by the script itself)
    return {"seconds": seconds, "groups": res["seconds"], "throughput": throughput}


# ---------------------------------------------------------------- the YAML/JSON frameworks

def check_simple(framework: str, script: str, files: list[str], base: dict[str, dict], led: Ledger) -> None:
    mine = [f for f in files if base[f].get("framework") == framework]
    if not mine:
        return
    jobs = [{"path": f, "worldSize": world_size(f, base[f]), "product": base[f]} for f in mine]
    for v in worker(script, [], jobs):
        for c in v["claims"]:
            led.claim(c["kind"], v["path"], c["product"], c["oracle"], c["agree"], c.get("version"), c.get("note", ""))


SIMPLE = [("deepspeed", "deepspeed_worker.py"), ("accelerate", "accelerate_worker.py"),
          ("lightning", "lightning_worker.py"), ("torchtune", "torchtune_worker.py")]
# Installed with --no-deps into .oracle-venv/<name>/<version>/ (oracle/setup.sh), passed to the worker as argv.
TARGETS = [("megatron", "megatron_worker.py", "megatron", "0.16.1"), ("verl", "verl_worker.py", "verl", "0.9.1")]


def check_target(framework: str, script: str, folder: str, files: list[str], base: dict[str, dict], led: Ledger) -> None:
    root = os.path.join(VENV, folder)
    mine = [f for f in files if base[f].get("framework") == framework]
    if not mine or not os.path.isdir(root):
        return
    jobs = [{"path": f, "worldSize": world_size(f, base[f]), "product": base[f]} for f in mine]
    for v in worker(script, [root], jobs):
        for c in v["claims"]:
            led.claim(c["kind"], v["path"], c["product"], c["oracle"], c["agree"], c.get("version"), c.get("note", ""))


# ---------------------------------------------------------------- transformers / TRL (pin sets)

# Product codes whose error says "the launch raises" (TrainingArguments / TrlParser / the DeepSpeed fill).
HF_LAUNCH_CODES = {"transformers/unknown-key", "transformers/deepspeed-value-mismatch", "transformers/fsdp1-strategy-with-fsdp2",
                   "transformers/bf16-and-fp16", "transformers/bf16-unsupported-gpu", "transformers/boolean-enum-value",
                   "transformers/grpo-generation-batch"}

# The corner cases with nothing pinned (oracle/hf/unpinned/, no requirements.txt). In this checkout the oracle's own
# requirements files above them (oracle/requirements*.txt, constraints.txt) would be read as their pins, so the
# product runs on a copy in a fresh folder with a `.git` marker (the product's search root): as a user's
# repository without pins. The worker parses the files in place (same text).
_HF_UNPINNED: list[str] = []


def hf_unpinned_copy() -> str:
    if not _HF_UNPINNED:
        import shutil
        import tempfile
        d = tempfile.mkdtemp(prefix="pl-hf-unpinned-")
        shutil.copytree(os.path.join(HERE, "hf", "unpinned"), d, dirs_exist_ok=True)
        os.mkdir(os.path.join(d, ".git"))
        _HF_UNPINNED.append(d)
    return _HF_UNPINNED[0]


def hf_sets() -> list[tuple[str, dict]]:
    """The pin sets of oracle/requirements-hf.txt that are installed: (name, {package: version})."""
    out = []
    for line in open(os.path.join(HERE, "requirements-hf.txt")):
        parts = line.split("#", 1)[0].split()
        if len(parts) < 2 or not os.path.isdir(os.path.join(VENV, "hf", parts[0], "transformers")):
            continue
        out.append((parts[0], dict(p.split("==", 1) for p in parts[1:])))
    return out


def lf_sets() -> list[tuple[str, dict]]:
    """The LLaMA-Factory pin sets (a requirements-hf.txt line naming `llamafactory==`) that are installed."""
    return [(n, pins) for n, pins in hf_sets() if "llamafactory" in pins]


# The tune half of the collected LLaMA-Factory YAMLs (PL_COLLECTED/hf/tune/<repo>/; the held half is never read):
# at most this many per repository (a vendored LLaMA-Factory carries dozens of near-identical examples).
LF_PER_REPO = 12


def lf_collected() -> list[str]:
    r = os.path.join(COLLECTED, "hf", "tune")
    out = []
    if not os.path.isdir(r):
        return out
    for repo in sorted(os.listdir(r)):
        n = 0
        for dp, dn, fn in os.walk(os.path.join(r, repo)):
            dn[:] = sorted(d for d in dn if d not in ("src", "node_modules", ".git"))
            for f in sorted(fn):
                if n < LF_PER_REPO and f.endswith((".yaml", ".yml")):
                    full = os.path.join(dp, f)
                    try:
                        t = open(full, errors="replace").read(100_000)
                    except OSError:
                        continue
                    if re.search(r"(?m)^stage:", t) and re.search(r"(?m)^finetuning_type:|^do_train:", t):
                        out.append(os.path.relpath(full, ROOT))
                        n += 1
    return out


def hf_dialect(entry: dict) -> str:
    r = entry.get("frameworkReason", "")
    return "trl" if "TRL" in r else "llamafactory" if "LLaMA-Factory" in r else "trainer"


def hf_workspace(path: str, corpus: str) -> str:
    """The folder a user opens for this file: its repository (corpus/<collection>/<repo>/), else this checkout."""
    full = os.path.abspath(os.path.join(ROOT, path))
    c = os.path.abspath(corpus) if corpus else None
    if c and full.startswith(c + os.sep):
        parts = os.path.relpath(full, c).split(os.sep)
        if len(parts) > 2:
            return os.path.join(c, parts[0], parts[1])
    coll = os.path.abspath(os.path.join(COLLECTED, "hf", "tune"))
    if full.startswith(coll + os.sep):  # a collected repository, opened on its own
        return os.path.join(coll, os.path.relpath(full, coll).split(os.sep)[0])
    cases = os.path.join(HERE, "cases", "hf")
    if full.startswith(cases + os.sep):  # a folder of corner cases (its requirements.txt pins it), opened on its own
        return os.path.join(cases, os.path.relpath(full, cases).split(os.sep)[0])
    own = os.path.join(HERE, "hf")
    if full.startswith(os.path.join(own, "unpinned") + os.sep):
        return hf_unpinned_copy()
    if full.startswith(own + os.sep):  # a pin set's folder of corner cases, opened on its own (not this checkout,
        return os.path.join(own, os.path.relpath(full, own).split(os.sep)[0])  # whose oracle scripts call TrlParser)
    return ROOT


def hf_product(files: list[str], corpus: str) -> dict[str, dict]:
    """`check --format json` run in each file's repository, as its user runs it (the pins, run scripts and
    accelerate configs the product reads are found from there), keyed by the oracle's path."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for f in files:
        groups[hf_workspace(f, corpus)].append(f)
    out: dict[str, dict] = {}
    unpinned = os.path.join(HERE, "hf", "unpinned")
    for ws, fs in groups.items():
        src = unpinned if _HF_UNPINNED and ws == _HF_UNPINNED[0] else ws  # the copy holds the same relative paths
        rel = {os.path.relpath(os.path.join(ROOT, f), src): f for f in fs}
        r = subprocess.run(["node", CLI, "check", "--format", "json", "--", *rel], cwd=ws, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise SystemExit(f"precision-lens check failed ({r.returncode}) in {ws}: {r.stderr[-2000:]}")
        for e in json.loads(r.stdout)["files"]:
            out[rel[e["path"]]] = dict(e, path=rel[e["path"]])
    return out


def project_fixture(path: str) -> dict:
    """The project-dataclass case (oracle/cases/hf/project_dataclass/): the worker imports its train.py, our own
    fixture, and parses with the parser it builds. Only that folder: no other project's code is ever imported."""
    d = os.path.join(HERE, "cases", "hf", "project_dataclass")
    full = os.path.abspath(os.path.join(ROOT, path))
    return {"project": os.path.join(d, "train.py")} if full.startswith(d + os.sep) else {}


def as_launched(prec: dict, launcher: str = "single GPU/DDP") -> dict:
    """The product's rows for the launcher the oracle ran. Where the launcher is not found, a row that differs by
    candidate is null with its value per launcher in `byLauncher` (issue #31); the workers launch one process without
    DeepSpeed or FSDP, so that row's single-GPU/DDP value is the one compared (the framework still decides the other)."""
    out = dict(prec)
    for k, by in (prec.get("byLauncher") or {}).items():
        if out.get(k) is None and isinstance(by, dict) and launcher in by:
            out[k] = by[launcher]
    return out


def check_transformers(files: list[str], base: dict[str, dict], led: Ledger, corpus: str, extra_only: bool = False) -> list[str]:
    """Each transformers-family file at the pin set holding the versions the product read for it (its
    packageVersions: a workspace pin, else the newest release read). A file whose versions no set holds, and
    LLaMA-Factory files (llamafactory is not installed: see docs/oracle.md), get a not-compared claim."""
    mine = [f for f in files if base[f].get("framework") == "transformers"]
    # the corner cases written for this family (oracle/hf/<set>/, each folder pinning its set in requirements.txt)
    own = [f for f in collect(None, [os.path.join(HERE, "hf")]) + lf_collected() if f not in mine] if not extra_only else []
    outer, base = base, hf_product(mine + own, corpus)
    own = [f for f in own if base[f].get("framework") == "transformers"]
    outer.update({f: base[f] for f in own})
    mine += own
    sets = [(n, pins) for n, pins in hf_sets() if "llamafactory" not in pins]
    lfs = lf_sets()
    by_set: dict[str, list[str]] = collections.defaultdict(list)
    lf_by_set: dict[str, list[str]] = collections.defaultdict(list)
    for f in mine:
        p = base[f]
        pv = {k: v["value"] for k, v in (p.get("packageVersions") or {}).items()}
        d = hf_dialect(p)
        if d == "llamafactory":
            hit = next((n for n, pins in lfs if pins.get("llamafactory") == pv.get("llamafactory")), None)
            if not hit:
                led.claim("hf.not-compared", f, {"llamafactory": pv.get("llamafactory")}, "no installed pin set holds this LLaMA-Factory release", True)
                continue
            lf_by_set[hit].append(f)
            continue
        need = ["transformers", "accelerate"] + (["trl"] if d == "trl" else [])
        hit = next((n for n, pins in sets if all(pins.get(k) == pv.get(k) for k in need)), None)
        if not hit:
            led.claim("hf.not-compared", f, {k: pv.get(k) for k in need}, "no installed pin set holds these versions", True)
            continue
        by_set[hit].append(f)
    for name, pins in sets:
        todo = by_set.get(name) or []
        if not todo:
            continue
        jobs = [dict({"path": f, "dialect": hf_dialect(base[f]), "worldSize": world_size(f, base[f])}, **project_fixture(f)) for f in todo]
        for o in worker("transformers_worker.py", [os.path.join(VENV, "hf", name), name], jobs):
            f, p = o["path"], base[o["path"]]
            ver = f"{name} (transformers {pins.get('transformers')}, TRL {pins.get('trl')}, accelerate {pins.get('accelerate')})"
            pkg = "trl" if hf_dialect(p) == "trl" else "transformers"
            inferred = ((p.get("packageVersions") or {}).get(pkg) or {}).get("kind") != "workspace-pin"
            errs = sorted({d["code"] for d in errors(p)})
            # a launch error resting on an unknown link (an inferred version, no training script naming the parser)
            # is capped at warning (core/provenance.ts): a warning on a launch code is the product's "raises" claim
            hedged = sorted({d["code"] for d in p.get("diagnostics", []) if d["severity"] == "warning" and d["code"] in HF_LAUNCH_CODES})
            raised = o["parse"].get("error") if not o["parse"]["ok"] else (o.get("finalize") or {}).get("error")
            p_raise = errs or hedged
            if o.get("unknown") is not None:
                # The parser rejected keys. Whether that stops the launch depends on the script (a project script's
                # parse_args_and_config() raises; TRL's own scripts pass fail_with_unknown_args=False, sft.py:135
                # @1.9.0): the claim is that the product names each key the framework rejects, at any severity.
                named = " ".join(d["message"] for d in p.get("diagnostics", []) if d["code"] in ("transformers/unknown-key", "transformers/trl-model-dtype"))
                missing = [k for k in o["unknown"] if f"`{k}`" not in named]
                # oracle/hf/unpinned/ holds keys some release declares and the newest rejects: there every key counts.
                if missing and inferred and "/hf/unpinned/" not in f:
                    # No pin: the product names only the keys no release it knows declares (a key some release
                    # declares may be right at the unpinned release): each key it names must be one the framework rejects.
                    p_named = sorted({a or b for a, b in re.findall(r"Unknown key `([^`]+)`|`([^`]+)` is rejected from", named)})
                    wrong = [k for k in p_named if k not in o["unknown"]]
                    led.claim("hf.keys", f, p_named or "names none", o["unknown"], not wrong, ver,
                              note=f"version inferred (no pin): the keys it names must be rejected; not named: {missing}"[:400])
                    continue
                led.claim("hf.keys", f, "names " + ", ".join(o["unknown"]) if not missing else f"does not name {missing}", o["unknown"] or "none left after the TRL CLI's accelerate_config",
                          not missing, ver, note=f"{o.get('parser')}: {raised[:160]}")
                continue
            if raised and not p_raise and inferred:
                # No pin: the product reads the keys of every release it knows and claims no launch outcome at the
                # release it assumed; the framework raises at that release. Not compared, and listed (docs/oracle.md).
                led.claim("hf.not-compared", f, "no launch claim (version inferred, no pin)", raised, True, ver,
                          note="the release the product assumed (no pin) raises; the product makes no claim at an inferred version")
                continue
            led.claim("hf.launch", f, p_raise or "launches", raised or "launches", bool(raised) == bool(p_raise), ver,
                      note=f"{o.get('parser')} at {o.get('processes', 1)} process(es)" + (" (product version inferred: warnings count)" if inferred else ""))
            if raised or p_raise:
                continue
            prec = as_launched(p.get("precision") or {})
            ds = o.get("ds")
            if ds and "error" not in ds:
                led.claim("hf.ds.compute", f, prec.get("compute"), ds["compute"], prec.get("compute") == ds["compute"], ver,
                          note=f"DeepSpeedEngine.get_data_types()[0] on the config HfTrainerDeepSpeedConfig filled (bf16 {ds['bf16']}, fp16 {ds['fp16']}, gas {ds['gas']})")
            elif o.get("accelerate_config"):
                led.claim("hf.not-compared", f, p.get("mechanism"), "launched by the TRL CLI with its accelerate config", True, ver,
                          note="`accelerate_config` makes `trl <cmd>` run `accelerate launch --config_file` (trl/cli.py:57-78@0.18.0): the oracle's in-process Accelerator does not see that launcher")
            elif o.get("fsdp"):
                led.claim("hf.not-compared", f, p.get("mechanism"), f"FSDP{o['fsdp'].get('version') or ''} {o.get('mixed_precision')}", True, ver,
                          note="FSDP's MixedPrecision policy needs a process group and a GPU: accelerate_worker.py compares FullyShardedDataParallelPlugin.set_mixed_precision")
            elif o.get("mixed_precision") == "fp16":
                led.claim("hf.not-compared", f, prec.get("compute"), "fp16", True, ver,
                          note="accelerate's fp16 autocast is for CUDA devices; the oracle's CPU Accelerator does not autocast in fp16")
            elif "amp" in o:
                # the product's autocast dtype: its compute dtype when its mechanism is autocast, else none
                p_amp = prec.get("compute") if p.get("mechanism") == "autocast" else None
                led.claim("hf.amp", f, p_amp or "no autocast", o["amp"] or "no autocast", p_amp == o["amp"], ver,
                          note=f"accelerate's Accelerator(cpu=True).autocast() for mixed_precision {o.get('mixed_precision')!r}")
    for name, pins in lfs:
        if lf_by_set.get(name):
            check_llamafactory(name, pins, lf_by_set[name], base, led, corpus)
    return own


# Product codes whose error says "LLaMA-Factory's get_train_args raises" (beside the transformers ones).
LF_LAUNCH_CODES = HF_LAUNCH_CODES | {"transformers/pure-bf16-zero3", "transformers/llamafactory-rejected-args"}


def check_llamafactory(name: str, pins: dict, files: list[str], base: dict[str, dict], led: Ledger, corpus: str) -> None:
    """Each LLaMA-Factory file through `get_train_args` at the set holding the release the product read
    (frameworks/llamafactory_worker.py), launched from the file's repository."""
    jobs = [{"path": f, "cwd": hf_workspace(f, corpus)} for f in files]
    ver = f"{name} (LLaMA-Factory {pins.get('llamafactory')}, transformers {pins.get('transformers')}, accelerate {pins.get('accelerate')})"
    for o in worker("llamafactory_worker.py", [os.path.join(VENV, "hf", name), name], jobs):
        f, p = o["path"], base[o["path"]]
        inferred = ((p.get("packageVersions") or {}).get("llamafactory") or {}).get("kind") != "workspace-pin"
        errs = sorted({d["code"] for d in errors(p)})
        hedged = sorted({d["code"] for d in p.get("diagnostics", []) if d["severity"] == "warning" and d["code"] in LF_LAUNCH_CODES})
        raised = o["launch"].get("error") if not o["launch"]["ok"] else None
        if raised and re.search(r"JSONDecodeError|existing deepspeed config", raised):
            # the corpus keeps some repositories' DeepSpeed JSONs as 128-byte stubs (Git LFS pointers): not the file
            led.claim("lf.not-compared", f, errs or "launches", raised, True, ver, note="the DeepSpeed JSON the file names is not readable here (a stub or absent in this copy)")
            continue
        if o.get("unknown") is not None:
            named = " ".join(d["message"] for d in p.get("diagnostics", []) if d["code"] == "transformers/unknown-key")
            missing = [k for k in o["unknown"] if f"`{k}`" not in named]
            if missing and inferred:
                p_named = sorted(set(re.findall(r"Unknown key `([^`]+)`", named)))
                wrong = [k for k in p_named if k not in o["unknown"]]
                led.claim("lf.keys", f, p_named or "names none", o["unknown"], not wrong, ver,
                          note=f"version inferred (no pin): the keys it names must be rejected; not named: {missing}"[:400])
                continue
            led.claim("lf.keys", f, "names " + ", ".join(o["unknown"]) if not missing else f"does not name {missing}", o["unknown"], not missing, ver, note=raised[:200])
            continue
        p_raise = errs or hedged
        led.claim("lf.launch", f, p_raise or "launches", raised or "launches", bool(raised) == bool(p_raise), ver,
                  note="get_train_args (hparams/parser.py)" + (" under torchrun (FORCE_TORCHRUN: DeepSpeed)" if o.get("torchrun") else "") + (" (product version inferred: warnings count)" if inferred else ""))
        if raised or p_raise:
            continue
        prec = as_launched(p.get("precision") or {})
        if p.get("mechanism") == "fully_shard":
            led.claim("lf.not-compared", f, p.get("mechanism"), f"FSDP (the launcher's accelerate config), {o.get('mixed_precision')}", True, ver,
                      note="FSDP's MixedPrecision policy needs a process group and a GPU: accelerate_worker.py compares FullyShardedDataParallelPlugin.set_mixed_precision")
            continue
        if o.get("deepspeed"):
            continue  # DeepSpeed's engine casts (not autocast, not the module's dtype): the launch outcome only
        tr = o.get("trainable") or []
        if len(tr) == 1:
            led.claim("lf.storage", f, prec.get("paramStorage"), tr[0], prec.get("paramStorage") == tr[0], ver,
                      note=f"the trainable parameters after LLaMA-Factory's init_adapter on a model built in the loader's dtype {o.get('compute')} ({o.get('finetuning_type')}, pure_bf16 {o.get('pure_bf16')})")
        elif o.get("quantization_bit") is not None:
            led.claim("lf.not-compared", f, prec.get("paramStorage"), f"{o['quantization_bit']}-bit quantized", True, ver, note="a quantized model needs bitsandbytes on CUDA: not built")
        mw = o.get("matmul_weights") or []
        if o.get("mixed_precision") == "no" and len(mw) == 1:
            led.claim("lf.compute", f, prec.get("compute"), mw[0], prec.get("compute") == mw[0], ver,
                      note="no autocast (TrainingArguments bf16/fp16 off): the dtype of the attention projections' weights after init_adapter (PEFT's base_layer for LoRA)")
        if o.get("mixed_precision") == "fp16":
            led.claim("lf.not-compared", f, p.get("mechanism"), "fp16 autocast", True, ver, note="accelerate's fp16 autocast is for CUDA devices; the oracle's CPU Accelerator does not autocast in fp16")
        elif "amp" in o:
            p_amp = prec.get("compute") if p.get("mechanism") == "autocast" else None
            led.claim("lf.amp", f, p_amp or "no autocast", o["amp"] or "no autocast", p_amp == o["amp"], ver,
                      note=f"accelerate's Accelerator(cpu=True).autocast() for mixed_precision {o.get('mixed_precision')!r}")


# ---------------------------------------------------------------- NeMo AutoModel (issue #35)

AUTOMODEL_REL = "0.7.0"


def automodel_files() -> list[str]:
    """The AutoModel recipes beyond examples/ and the corpus: the corner cases in oracle/automodel/, and the
    folders in PL_AUTOMODEL_RECIPES (colon-separated: e.g. collected forks of NVIDIA-NeMo/Automodel, whose
    examples/ hold the recipes; the wheel and sdist ship none). Only files with a `_target_: nemo_automodel`."""
    roots = [os.path.join(HERE, "automodel")] + [d for d in os.environ.get("PL_AUTOMODEL_RECIPES", "").split(":") if d]
    out = []
    for r in roots:
        for dp, dn, fn in os.walk(r):
            dn.sort()
            for f in sorted(fn):
                if f.endswith((".yaml", ".yml")):
                    full = os.path.join(dp, f)
                    try:
                        if "nemo_automodel" in open(full, errors="replace").read(200_000):
                            out.append(os.path.relpath(full, ROOT))
                    except OSError:
                        pass
    return out


def check_automodel(files: list[str], base: dict[str, dict], led: Ledger) -> None:
    root = os.path.join(VENV, "automodel", AUTOMODEL_REL)
    if not os.path.isdir(os.path.join(root, "nemo_automodel")):
        return
    extra = [f for f in automodel_files() if f not in base]
    more = product_with_sidecars(extra) if extra else {}
    base.update(more)  # counted with the rest in the report's configs
    files.extend(f for f in more if f not in files)
    mine = [f for f in files if base[f].get("framework") == "automodel"]
    jobs = [{"path": f, "worldSize": world_size(f, base[f]), "product": base[f]} for f in mine]
    for v in worker("automodel_worker.py", [root], jobs):
        for c in v["claims"]:
            led.claim(c["kind"], v["path"], c["product"], c["oracle"], c["agree"], AUTOMODEL_REL, c.get("note", ""))


def render_md(report: dict) -> str:
    L = ["# Oracle agreement table", "",
         f"Configs checked: **{report['configs']}** ({', '.join(f'{k} {v}' for k, v in report['frameworks'].items())}).",
         f"Claims checked: **{report['totals']['checked']}**, agreements **{report['totals']['agree']}**, "
         f"documented differences **{report['totals']['documented']}**, undocumented **{report['totals']['undocumented']}**.", "",
         "| claim | checked | agree | documented | undocumented |", "|---|---:|---:|---:|---:|"]
    for k, s in sorted(report["kinds"].items()):
        L.append(f"| `{k}` | {s['checked']} | {s['agree']} | {s['documented']} | {s['undocumented']} |")
    L += ["", "## Framework versions", "", "| package | version | status |", "|---|---|---|"]
    for i in report["installs"]:
        L.append(f"| {i['name']} | {i['version']} | {i['status']}{': ' + i['message'] if i.get('message') else ''} |")
    docs = collections.Counter(c["documented"] for c in report["disagreements"] if c.get("documented"))
    if docs:
        L += ["", "## Documented differences (see docs/oracle.md)", "", "| name | claims |", "|---|---:|"]
        for n, k in sorted(docs.items()):
            L.append(f"| {n} | {k} |")
    pr = report.get("probe") or {}
    if pr.get("throughput"):
        L += ["", "## The probe on CPU (gloo): tokens/s of the probe's small model per rank, beside the product's estimate for the configured model on GPUs", "",
              f"One training step per variant, all configs: {pr['seconds']} s (torch started once per rank count: {pr['groups']}).", "",
              "| config | variant | observed tokens/s per rank (CPU) | predicted tokens/s per GPU |", "|---|---|---:|---:|"]
        for t in pr["throughput"]:
            o, p = t.get("observedTokensPerSecondPerRank"), t.get("predictedTokensPerSecondPerGpu")
            L.append(f"| {t['path']} | {t['variant']} | {round(o) if o else '?'} | {round(p) if p else '?'} |")
    und = [c for c in report["disagreements"] if not c.get("documented")]
    if und:
        L += ["", "## Undocumented disagreements", ""]
        for c in und:
            L.append(f"- `{c['kind']}` {c['path']}{' @' + c['version'] if c.get('version') else ''}: product {json.dumps(c['product'])}, framework {json.dumps(c['oracle'])}")
    return "\n".join(L) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.environ.get("PL_CORPUS", os.path.join(ROOT, "..", "shared", "corpus")))
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--only", default="", help="comma-separated frameworks")
    ap.add_argument("--registry", action="store_true", help="with --files: also the installed torchtitan 0.3.0 wheel's config registries")
    ap.add_argument("--files", action="append", default=[], metavar="DIR",
                    help="check only the configs under DIR (repeatable) instead of examples/, test/fixtures/ and the corpus; "
                         "per-file arguments: a `# precision-lens: world-size=N torchtitan-version=vX` line in the file, or, "
                         "for JSON, in a sidecar <file>.precision-lens")
    a = ap.parse_args()
    t0 = time.time()
    files = collect(a.corpus, a.files)
    base = product_with_sidecars(files)
    files = [f for f in files if f in base]
    with open(os.path.join(HERE, "known_differences.json")) as fh:
        known = json.load(fh)
    led = Ledger(known)
    installs_path = os.path.join(VENV, "install-report.json")
    installs = json.load(open(installs_path)) if os.path.exists(installs_path) else []
    only = set(filter(None, a.only.split(",")))
    if not only or "torchtitan" in only:
        check_torchtitan(files, base, led, installs)
        # the installed 0.3.0 registries and the corpus's forks (not with a folder of one's own, unless --registry:
        # then the installed wheel's registries only; oracle/mutants.py's registry mutants)
        if not a.files or a.registry:
            import titan_registry  # torchtitan 0.3.0 Python config registries, per function

            titan_registry.check(led, VENV, None if a.files else a.corpus, ROOT, product, worker, a.out)
    if not only or "torch" in only:
        check_torch(led)
    probe = check_probe(files, base, led, a.out) if (not only or "probe" in only) else {}
    failed = {i["name"] for i in installs if i.get("status") == "failed"}
    for fw, script in SIMPLE:
        if (not only or fw in only) and fw not in failed:  # a failed install is in the table with pip's message
            check_simple(fw, script, files, base, led)
    # the transformers family runs only when asked (--only transformers): its pin sets take minutes to import
    if "transformers" in only:
        files += check_transformers(files, base, led, a.corpus, bool(a.files))
    if (not only or "automodel" in only) and "nemo_automodel" not in failed:
        check_automodel(files, base, led)
    for fw, script, folder, ver in TARGETS:
        if (not only or fw in only) and fw not in failed:
            check_target(fw, script, os.path.join(folder, ver), files, base, led)
    kinds: dict[str, dict] = collections.defaultdict(lambda: {"checked": 0, "agree": 0, "documented": 0, "undocumented": 0})
    for c in led.claims:
        s = kinds[c["kind"]]
        s["checked"] += 1
        s["agree" if c["agree"] else ("documented" if c.get("documented") else "undocumented")] += 1
    checked_paths = {c["path"] for c in led.claims if not c["kind"].startswith("torch.")}  # torch.* claims are per op, not per config
    fw_counts = collections.Counter(base[f].get("framework") or "not a training config" for f in files if f in checked_paths)
    totals = {k: sum(s[k] for s in kinds.values()) for k in ("checked", "agree", "documented", "undocumented")}
    report = {"configs": len(checked_paths), "frameworks": dict(fw_counts), "totals": totals, "kinds": dict(kinds),
              "installs": installs, "disagreements": [c for c in led.claims if not c["agree"]], "seconds": round(time.time() - t0, 1),
              "unused_documented": sorted({k["name"] for k in known} - {c.get("documented") for c in led.claims}), "probe": probe}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "agreement.json"), "w") as fh:
        json.dump({**report, "claims": led.claims}, fh, indent=1)
    md = render_md(report)
    with open(os.path.join(a.out, "agreement.md"), "w") as fh:
        fh.write(md)
    print(md)
    print(f"oracle: {report['configs']} configs, {totals['checked']} claims, {totals['undocumented']} undocumented disagreements, {report['seconds']} s")
    return 1 if totals["undocumented"] else 0


if __name__ == "__main__":
    sys.exit(main())

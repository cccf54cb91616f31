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
EXTS = (".toml", ".yaml", ".yml", ".json")

# The product's error codes that say "ConfigManager refuses the file" (the schema family and TOML syntax).
PARSE_CODES = {"unknown-key", "unknown-section", "moved-key", "removed-key", "toml-syntax", "extension-section-without-module", "module-not-in-release"}
DIMS_CODES_PREFIX = "parallel-dims-"
MESH_CODES = {"ep-without-fsdp-mesh"}
# The product's error codes that say "the model's parallelize_fn / pipelining_fn raises".
PARALLELIZE_CODES = {"model-not-in-release", "ddp-with-other-parallelism", "pp-microbatch", "pp-1f1b-microbatches", "cp-attention-unsupported", "cpu-offload-without-fsdp", "float8-grouped-mm-pp-cp",
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
    files = []
    for r in roots:
        for dp, dn, fn in os.walk(r):
            dn.sort()
            for f in sorted(fn):
                if f.endswith(EXTS) and not f.startswith("sarif-schema"):
                    files.append(os.path.relpath(os.path.join(dp, f), ROOT))
    return files


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

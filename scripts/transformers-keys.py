#!/usr/bin/env python3
"""Extract the field names of transformers' TrainingArguments (and Seq2SeqTrainingArguments) at every release.

Data only: for each release it downloads the wheel with pip (no dependencies, nothing installed or imported),
reads src/transformers/training_args.py with Python's ast (never executed) and records the names of the
annotated class-level fields of the dataclass. The output is a JSON fact table, read at build time by
scripts/transformers-keys-gen.mjs into server/src/core/frameworks/transformers/trainingArgs.generated.ts.

  python3 scripts/transformers-keys.py --from 4.36.0 --out /tmp/ta-raw.json [--keep DIR]
  python3 scripts/transformers-keys.py --compact /tmp/ta-raw.json --out server/src/core/frameworks/transformers/trainingArgs.json

The first form downloads (resumable: releases already in --out are skipped); --keep DIR keeps each release's
training_args.py for reading defaults by hand (never committed). The second writes the committed table: the
ordered releases and, per field, the runs of consecutive releases that declare it ("0-12,15-40", indices into
`releases`), which keys.ts imports and esbuild bundles at build time.
"""
import argparse, ast, json, os, re, subprocess, sys, tempfile, zipfile


def versions(first):
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "transformers"], capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("Available versions:"))
    vs = [v.strip() for v in line.split(":", 1)[1].split(",")]
    key = lambda v: tuple(int(x) for x in re.findall(r"\d+", v)[:3])
    return sorted((v for v in vs if re.fullmatch(r"\d+\.\d+\.\d+", v) and key(v) >= key(first)), key=key)


def fields(src, cls):
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and not s.target.id.startswith("_")]
    return None


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def compact(raw_path, out):
    raw = json.load(open(raw_path))["releases"]
    rels = sorted(raw, key=vkey)
    def runs(cls):
        names = sorted({f for r in rels for f in (raw[r][cls] or [])})
        table = {}
        for n in names:
            idx = [i for i, r in enumerate(rels) if n in (raw[r][cls] or [])]
            parts, start = [], idx[0]
            for a, b in zip(idx, idx[1:] + [None]):
                if b != a + 1:
                    parts.append(f"{start}-{a}" if a != start else f"{a}")
                    start = b
            table[n] = ",".join(parts)
        return table
    data = {
        "_source": "field names of TrainingArguments / Seq2SeqTrainingArguments in src/transformers/training_args*.py of each release's wheel on PyPI, read with ast by scripts/transformers-keys.py",
        "releases": rels,
        "TrainingArguments": runs("TrainingArguments"),
        "Seq2SeqTrainingArguments": runs("Seq2SeqTrainingArguments"),
    }
    with open(out, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compact")
    ap.add_argument("--from", dest="first", default="4.36.0")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep")
    a = ap.parse_args()
    if a.compact:
        return compact(a.compact, a.out)
    result = json.load(open(a.out)) if os.path.exists(a.out) else {"releases": {}}
    for v in versions(a.first):
        if v in result["releases"]:
            continue
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-m", "pip", "download", f"transformers=={v}", "--no-deps", "--only-binary", ":all:", "-q", "-d", d], capture_output=True, text=True)
            wheels = [f for f in os.listdir(d) if f.endswith(".whl")]
            if r.returncode or not wheels:
                print(f"{v}: download failed", file=sys.stderr)
                continue
            with zipfile.ZipFile(os.path.join(d, wheels[0])) as z:
                ta = z.read("transformers/training_args.py").decode()
                s2s = z.read("transformers/training_args_seq2seq.py").decode()
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            open(os.path.join(a.keep, f"training_args-{v}.py"), "w").write(ta)
        result["releases"][v] = {"TrainingArguments": fields(ta, "TrainingArguments"), "Seq2SeqTrainingArguments": fields(s2s, "Seq2SeqTrainingArguments")}
        print(f"{v}: {len(result['releases'][v]['TrainingArguments'])} fields", file=sys.stderr)
        json.dump(result, open(a.out, "w"), indent=0, sort_keys=True)


if __name__ == "__main__":
    main()

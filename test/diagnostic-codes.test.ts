/**
 * The code registry (server/src/core/diagnostics/codes.ts) against where codes are declared and against their pages
 * (docs/diagnostics/<code>.md), and what the core attaches per code: tags, the page's address, the long
 * explanation (hover, report, CLI JSON) and relatedInformation (the -1 line, the run script line, the pin,
 * the other DeepSpeed file). Issue #12, "Messages as the best linters write them".
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { helpUri } from "../server/src/cli/sarif";
import { diagnosticJson } from "../server/src/cli/diagnosticJson";
import { analyzeDocument } from "../server/src/core/analyze";
import { codeDocPath, codeHref, codeInfo, DIAGNOSTIC_CODES } from "../server/src/core/diagnostics/codes";
import { hoverAt } from "../server/src/core/features/index";
import { TITAN_RULES } from "../server/src/core/frameworks/torchtitan/rules/index";
import { fakeEnv } from "./support/fakeEnv";

const ROOT = resolve(__dirname, "..");
const SRC = join(ROOT, "server", "src", "core");
const DOCS = join(ROOT, "docs", "diagnostics");
const CODES = Object.keys(DIAGNOSTIC_CODES);

function walk(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...walk(p, ext));
    else if (n.endsWith(ext)) out.push(p);
  }
  return out;
}

/** Codes written as literals at emission sites in the core (diag("…") and a framework's add("…")). */
function emittedLiterals(): Set<string> {
  const out = new Set<string>();
  for (const f of walk(SRC, ".ts")) {
    const text = readFileSync(f, "utf8");
    const ns = /diagnostics\("([a-z]+)"\)/.exec(text)?.[1];
    for (const m of text.matchAll(/\bdiag\(\s*"([^"]+)"/g)) out.add(m[1]!);
    for (const m of text.matchAll(/\b(?:d|diags)\.add\(\s*"([^"]+)"/g)) {
      const c = m[1]!;
      out.add(c.includes("/") || c.startsWith("yaml-") || c.startsWith("json-") || !ns ? c : `${ns}/${c}`);
    }
  }
  for (const fmt of ["toml", "yaml", "json"]) out.add(`${fmt}-syntax`); // analyze.ts: `${format}-syntax`
  return out;
}

const TP_ONLY = `[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 2
seq_len = 8192
mixed_precision_reduce = "float32"

[parallelism]
data_parallel_shard_degree = -1
tensor_parallel_degree = 8
`;

describe("the code registry", () => {
  it("holds every code the torchtitan rules declare", () => {
    const missing = [...new Set(TITAN_RULES.flatMap((r) => r.codes))].filter((c) => !codeInfo(c));
    assert.deepEqual(missing, []);
  });

  it("holds every code written at an emission site in the core (frameworks, syntax, suppression, directives)", () => {
    const lit = emittedLiterals();
    assert.ok(lit.has("accelerate/bare-no-boolean") && lit.has("deepspeed/precision-mismatch") && lit.has("unused-suppression") === false, "the scan finds framework codes");
    const missing = [...lit].filter((c) => !codeInfo(c)).sort();
    assert.deepEqual(missing, []);
    assert.ok(codeInfo("unused-suppression"), "suppress.ts declares it as a constant");
  });

  it("every code has its page, and every page is a registered code", () => {
    const pages = walk(DOCS, ".md")
      .map((p) => relative(DOCS, p).split(sep).join("/"))
      .filter((p) => p !== "README.md")
      .map((p) => p.replace(/\.md$/, ""));
    assert.deepEqual(CODES.filter((c) => !existsSync(join(ROOT, codeDocPath(c)))), [], "codes without a page");
    assert.deepEqual(pages.filter((p) => !codeInfo(p)), [], "pages without a code");
  });

  it("every page names its code in the title and has the sections what, why, source, example, fix", () => {
    for (const c of CODES) {
      const text = readFileSync(join(ROOT, codeDocPath(c)), "utf8");
      assert.ok(text.startsWith(`# \`${c}\``), `${c}: title`);
      for (const h of ["## What", "## Why", "## Source", "## Example", "## Fix"]) assert.ok(text.includes(h), `${c}: ${h}`);
    }
  });

  it("the index links every page", () => {
    const index = readFileSync(join(DOCS, "README.md"), "utf8");
    for (const c of CODES) assert.ok(index.includes(`](${c}.md)`), `index lacks ${c}`);
  });

  it("one address for a code's page: codeDescription.href, JSON href and SARIF helpUri agree", () => {
    assert.equal(helpUri("no-mixed-precision"), codeHref("no-mixed-precision"));
    assert.ok(codeHref("torchtune/unknown-dtype").endsWith("/blob/main/docs/diagnostics/torchtune/unknown-dtype.md"));
    assert.ok(codeHref("no-mixed-precision").endsWith(`/blob/main/${codeDocPath("no-mixed-precision")}`));
  });
});

describe("per-code data applied centrally", () => {
  it("no-effect is tagged unnecessary; the seed warning carries no tag", () => {
    const r = analyzeDocument("file:///w/train.toml", TP_ONLY, { worldSize: 8 });
    const byCode = new Map(r.diagnostics.map((d) => [d.code, d]));
    assert.equal(byCode.get("no-effect")?.unnecessary, true);
    assert.equal(byCode.get("no-effect")?.deprecated, undefined);
    assert.equal(byCode.get("no-mixed-precision")?.unnecessary, undefined);
  });

  it("deprecated-key is tagged deprecated", () => {
    const text = `# precision-lens: framework=torchtitan torchtitan-version=v0.2.2\n[model]\ntokenizer_path = "./assets/tokenizer/tokenizer.model"\n[training]\nsteps = 1\n`;
    const d = analyzeDocument("file:///w/t.toml", text, { worldSize: 8 }).diagnostics.find((x) => x.code === "deprecated-key");
    assert.ok(d);
    assert.equal(d.deprecated, true);
  });

  it("the CLI's JSON carries href, detail, tags and related locations", () => {
    const r = analyzeDocument("file:///w/train.toml", TP_ONLY, { worldSize: 8 });
    const j = r.diagnostics.map(diagnosticJson);
    const seed = j.find((x) => x.code === "no-mixed-precision")!;
    assert.equal(seed.href, codeHref("no-mixed-precision"));
    assert.match(String(seed.detail), /FSDP is off/);
    assert.deepEqual((seed.related as { range: { start: { line: number } } }[]).map((x) => x.range.start.line), [10]);
    assert.deepEqual(j.find((x) => x.code === "no-effect")!.tags, ["unnecessary"]);
  });
});

describe("the long explanation is reachable", () => {
  it("the hover over the diagnostic's range leads with it, then the precision summary", () => {
    const r = analyzeDocument("file:///w/train.toml", TP_ONLY, { worldSize: 8 });
    const h = hoverAt(r, { line: 11, character: 3 });
    assert.ok(h);
    // The editor shows the message itself in the same hover: the server adds the code, its page and the explanation.
    assert.match(h.markdown, /^\*\*\[no-mixed-precision\]\(https:\/\/[^)]+\/docs\/diagnostics\/no-mixed-precision\.md\)\*\* \(warning\): This is a TP-only run/);
    assert.match(h.markdown, /FSDP is off and torchtitan v0\.2\.2 applies no mixed precision/);
    assert.match(h.markdown, /---\n\n\*\*Precision Lens\*\* · torchtitan v0\.2\.2/);
  });

  it("the report lists every diagnostic with its explanation", () => {
    const r = analyzeDocument("file:///w/train.toml", TP_ONLY, { worldSize: 8 });
    assert.match(r.reportMarkdown ?? "", /## Diagnostics[\s\S]*no-effect[\s\S]*no-mixed-precision[\s\S]*FSDP is off/);
  });
});

describe("relatedInformation: what decided it", () => {
  it("no-mixed-precision points at the -1 line, the run script line and the pin", () => {
    const files = {
      "/w/train.toml": TP_ONLY,
      "/w/run.sh": "#!/bin/bash\nset -e\nNGPU=8 ./run_train.sh \\\n  --job.config_file train.toml\n",
      "/w/requirements.txt": "torch==2.9.0\ntorchtitan==0.2.1\n",
    };
    const r = analyzeDocument("file:///w/train.toml", TP_ONLY, {}, fakeEnv(files, "/w/train.toml"));
    const d = r.diagnostics.find((x) => x.code === "no-mixed-precision");
    assert.ok(d, r.diagnostics.map((x) => x.code).join());
    assert.deepEqual(
      d.related?.map((x) => [x.location.uri, x.location.range.start.line, x.message]),
      [
        ["file:///w/train.toml", 10, "-1 resolves to 1 on 8 GPUs"],
        ["file:///w/run.sh", 2, "World size 8: NGPU=8 in run.sh"],
        ["file:///w/requirements.txt", 1, "torchtitan v0.2.1: torchtitan 0.2.1 pinned in requirements.txt"],
      ],
    );
    assert.equal(d.related![1]!.location.range.end.character, "NGPU=8 ./run_train.sh \\".length);
  });

  it("a world-size directive is the related location when it decides", () => {
    const text = `# precision-lens: world-size=4\n${TP_ONLY.replace("tensor_parallel_degree = 8", "tensor_parallel_degree = 4")}`;
    const d = analyzeDocument("file:///w/train.toml", text, {}).diagnostics.find((x) => x.code === "no-mixed-precision");
    assert.ok(d);
    assert.deepEqual(d.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///w/train.toml", 11], ["file:///w/train.toml", 0]]);
  });

  it("parallel-dims errors point at the run script that gave the world size", () => {
    const bad = TP_ONLY.replace("data_parallel_shard_degree = -1", "data_parallel_shard_degree = 2");
    const files = { "/w/train.toml": bad, "/w/launch.sh": "torchrun --nnodes 1 --nproc_per_node 4 train.py --job.config_file train.toml\n" };
    const d = analyzeDocument("file:///w/train.toml", bad, {}, fakeEnv(files, "/w/train.toml")).diagnostics.find((x) => x.code === "parallel-dims-product");
    assert.ok(d);
    assert.equal(d.message, "The degrees multiply to 16, not the world size 4: the launch fails");
    assert.deepEqual(d.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///w/launch.sh", 0]]);
  });

  it("deepspeed/precision-mismatch points at the other file on both sides", () => {
    const ds = '{\n  "zero_optimization": {"stage": 2},\n  "fp16": {"enabled": true},\n  "communication_data_type": "fp32"\n}\n';
    const acc = "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ../ds/zero2.json\n";
    const files = { "/repo/ds/zero2.json": ds, "/repo/accelerate/launch.yaml": acc };
    const y = analyzeDocument("file:///repo/accelerate/launch.yaml", acc, {}, fakeEnv(files, "/repo/accelerate/launch.yaml")).diagnostics.find((x) => x.code === "deepspeed/precision-mismatch");
    assert.deepEqual(y?.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///repo/ds/zero2.json", 2]]);
    const j = analyzeDocument("file:///repo/ds/zero2.json", ds, {}, fakeEnv(files, "/repo/ds/zero2.json")).diagnostics.find((x) => x.code === "deepspeed/precision-mismatch");
    assert.deepEqual(j?.related?.map((x) => [x.location.uri, x.location.range.start.line]), [["file:///repo/accelerate/launch.yaml", 1]]);
  });
});

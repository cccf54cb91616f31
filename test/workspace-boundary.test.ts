/**
 * Issue #33 (minor): links a config names are read inside the workspace only (core/workspace/boundary.ts, the
 * one place every read goes through). A link outside — by `../..`, by an absolute path, or by a symbolic link
 * inside the workspace that points out — is not read: it is an unknown fact that says so, and no output
 * (diagnostics, hovers, inlay hints, report, CLI text and JSON) holds the outside path.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDocument } from "../server/src/core/analyze";
import type { AnalysisResult } from "../server/src/core/analysis";
import { boundToWorkspace, linkOutside, normalizePath, OUTSIDE_WORKSPACE } from "../server/src/core/workspace/boundary";
import { nodeEnv } from "../server/src/host/nodeEnv";
import { fakeEnv } from "./support/fakeEnv";
import { runCliCaptured } from "./support/cli";

/** fp16 on, bf16 off, a micro batch of 4: a TRL file with `bf16: true` and batch 2 conflicts with it (HF3). */
const DS = `{"bf16": {"enabled": false}, "fp16": {"enabled": true}, "zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": 4}\n`;
const trl = (ds: string): string => `model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\nlearning_rate: 2.0e-5\nbf16: true\nper_device_train_batch_size: 2\ndeepspeed: ${ds}\noutput_dir: out\n`;
const accel = (ds: string): string => `compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ${ds}\n  zero3_init_flag: false\n`;

/** A workspace (a git repository) and, beside it, a folder outside it holding a DeepSpeed JSON. */
function tree(): { ws: string; outside: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "pl-bound-")));
  const ws = join(top, "ws");
  const outside = join(top, "secret-outside");
  mkdirSync(join(ws, ".git"), { recursive: true });
  mkdirSync(join(ws, "cfg"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "ds.json"), DS);
  return { ws, outside };
}

function analyse(path: string, text: string, ws: string): AnalysisResult {
  writeFileSync(path, text);
  return analyzeDocument(pathToFileURL(path).href, text, {}, nodeEnv(path, [ws]));
}

/** Everything the analysis shows a user, as one string. */
function shown(r: AnalysisResult): string {
  return JSON.stringify({ d: r.diagnostics, h: r.hovers, i: r.inlayHints, m: r.reportMarkdown, p: r.precision, l: r.layoutName });
}

describe("a linked file outside the workspace is not read (issue #33)", () => {
  it("TRL `deepspeed: ../../secret-outside/ds.json`: no HF3 from it, an assumption that says outside, no outside path", () => {
    const { ws, outside } = tree();
    const r = analyse(join(ws, "cfg", "trl.yaml"), trl("../../secret-outside/ds.json"), ws);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch"), []);
    assert.equal(r.layoutName, "DeepSpeed (config file outside the workspace)");
    assert.match(r.reportMarkdown ?? "", /the DeepSpeed file `ds\.json` is outside the workspace and was not read: its stage and explicit values are unknown/);
    assert.ok(!shown(r).includes(outside) && !shown(r).includes("secret-outside"), shown(r));
    // The same file inside the workspace is read: the three HF3 conflicts (the test can fail).
    writeFileSync(join(ws, "ds.json"), DS);
    const inside = analyse(join(ws, "cfg", "trl2.yaml"), trl("../ds.json"), ws);
    assert.equal(inside.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch").length, 3);
  });

  it("accelerate `deepspeed_config_file: /abs/…/ds.json`: deepspeed-config-missing (information) says outside; no DS9", () => {
    const { ws, outside } = tree();
    const r = analyse(join(ws, "cfg", "accelerate.yaml"), accel(join(outside, "ds.json")), ws);
    const d = r.diagnostics.find((x) => x.code === "accelerate/deepspeed-config-missing");
    assert.equal(d?.severity, "information");
    assert.equal(d?.message, `DeepSpeed config ${OUTSIDE_WORKSPACE}: its own settings cannot be checked`);
    assert.match(d?.detail ?? "", /The DeepSpeed config `ds\.json` is outside the workspace and was not read: its own settings cannot be checked/);
    assert.deepEqual(r.diagnostics.filter((x) => x.code === "deepspeed/precision-mismatch"), []);
    assert.ok(!shown(r).includes(outside), shown(r));
    // Inside, the same link conflicts (DS9: `mixed_precision: bf16` against `fp16.enabled: true`).
    writeFileSync(join(ws, "ds.json"), DS);
    const inside = analyse(join(ws, "cfg", "accelerate2.yaml"), accel(join(ws, "ds.json")), ws);
    assert.equal(inside.diagnostics.filter((x) => x.code === "deepspeed/precision-mismatch").length, 1);
  });

  it("a symbolic link inside the workspace that points outside is outside", () => {
    const { ws, outside } = tree();
    symlinkSync(join(outside, "ds.json"), join(ws, "cfg", "ds.json"));
    const r = analyse(join(ws, "cfg", "trl.yaml"), trl("ds.json"), ws);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch"), []);
    assert.equal(r.layoutName, "DeepSpeed (config file outside the workspace)");
    assert.ok(!shown(r).includes(outside), shown(r));
    // A folder link too: cfg/shared → outside.
    symlinkSync(outside, join(ws, "shared"));
    const a = analyse(join(ws, "cfg", "accelerate.yaml"), accel("../shared/ds.json"), ws);
    assert.equal(a.diagnostics.find((x) => x.code === "accelerate/deepspeed-config-missing")?.message, `DeepSpeed config ${OUTSIDE_WORKSPACE}: its own settings cannot be checked`);
  });

  it("an accelerate config a launch line names outside the workspace is not read; the header says so by its file name", () => {
    const { ws, outside } = tree();
    writeFileSync(join(outside, "zero3.yaml"), accel("ds.json"));
    writeFileSync(join(ws, "train.sh"), `accelerate launch --config_file ${join(outside, "zero3.yaml")} train.py --config cfg/trl.yaml\n`);
    const r = analyse(join(ws, "cfg", "trl.yaml"), trl("").replace("deepspeed: \n", ""), ws);
    assert.match(r.reportMarkdown ?? "", /launcher not found: train\.sh line 1 names `zero3\.yaml`, which is outside the workspace and was not read/);
    assert.ok(!shown(r).includes(outside), shown(r));
  });

  it("CLI text and JSON hold no outside path", () => {
    const { ws, outside } = tree();
    writeFileSync(join(ws, "cfg", "trl.yaml"), trl("../../secret-outside/ds.json"));
    writeFileSync(join(ws, "cfg", "accelerate.yaml"), accel(join(outside, "ds.json")));
    for (const args of [["check", "cfg"], ["check", "--format", "json", "cfg"], ["check", "--format", "sarif", "cfg"], ["explain", "cfg/trl.yaml"], ["explain", "cfg/accelerate.yaml"]]) {
      const out = runCliCaptured(args, ws);
      assert.ok(!out.out.includes(outside) && !out.err.includes(outside), `${args.join(" ")}: ${out.out}${out.err}`);
    }
    assert.match(runCliCaptured(["check", "cfg/accelerate.yaml"], ws).out, /information \[accelerate\/deepspeed-config-missing\] DeepSpeed config is outside the workspace and was not read/);
  });
});

describe("boundToWorkspace: the one place reads are bounded", () => {
  it("refuses `..`, absolute and sibling-prefix paths before the host reads them; lists nothing outside", () => {
    const read: string[] = [];
    const inner = fakeEnv({ "/ws/a/ds.json": "{}", "/etc/passwd": "root", "/ws-x/ds.json": "{}" }, "/ws/a/cfg.yaml", ["/ws"]);
    const env = boundToWorkspace({ ...inner, readFile: (p) => (read.push(p), inner.readFile(p)) });
    assert.equal(env.readFile("/ws/a/ds.json"), "{}");
    assert.equal(env.readFile("/ws/a/../../etc/passwd"), undefined);
    assert.equal(env.readFile("/etc/passwd"), undefined);
    assert.equal(env.readFile("/ws-x/ds.json"), undefined);
    assert.deepEqual(env.listDir("/etc"), []);
    assert.deepEqual(read, ["/ws/a/ds.json"]);
    assert.equal(linkOutside(env, "../../etc/passwd"), true);
    assert.equal(linkOutside(env, "ds.json"), false);
    // A copy made with a spread (deepspeedLinks.ts referrersOf) keeps the same boundary.
    assert.equal({ ...env, documentPath: "/ws/b/x.yaml" }.readFile("/etc/passwd"), undefined);
  });

  it("the git repository root widens a workspace folder opened below it; the filesystem root does not", () => {
    const inner = fakeEnv({ "/repo/ds/z.json": "{}", "/other/z.json": "{}" }, "/repo/sub/cfg.yaml", ["/repo/sub"]);
    assert.equal(boundToWorkspace({ ...inner, searchRoot: "/repo" }).readFile("/repo/ds/z.json"), "{}");
    assert.equal(boundToWorkspace({ ...inner, searchRoot: "/" }).readFile("/repo/ds/z.json"), undefined);
    assert.equal(boundToWorkspace({ ...inner, searchRoot: "/" }).readFile("/other/z.json"), undefined);
  });
});

describe("normalizePath (issue #36: paths already normal are returned as they are)", () => {
  /** The definition: split on either separator, drop empty and `.` segments, resolve `..`. */
  const reference = (p: string): string => {
    const s = p.replace(/\\/g, "/");
    const drive = /^[A-Za-z]:/.exec(s)?.[0] ?? "";
    const rest = s.slice(drive.length);
    const abs = rest.startsWith("/");
    const out: string[] = [];
    for (const x of rest.split("/")) {
      if (!x || x === ".") continue;
      if (x === "..") {
        if (out.length && out[out.length - 1] !== "..") out.pop();
        else if (!abs) out.push("..");
      } else out.push(x);
    }
    return `${drive}${abs ? "/" : ""}${out.join("/")}` || (abs ? "/" : ".");
  };
  it("equals the definition on random paths of separators, dots and names", () => {
    const parts = ["/", "/", "\\", ".", "..", "a", "b.toml", ".x", "..y", "C:", "/."];
    let seed = 0x9e3779b9;
    const rnd = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    for (let i = 0; i < 30_000; i++) {
      const p = Array.from({ length: rnd(9) }, () => parts[rnd(parts.length)]).join("");
      assert.equal(normalizePath(p), reference(p), JSON.stringify(p));
    }
  });
  it("normalises the forms the fast path must not take", () => {
    for (const [p, want] of [["/a/b/", "/a/b"], ["/a//b", "/a/b"], ["/a/./b", "/a/b"], ["/a/../b", "/b"], ["/a/.", "/a"], ["/a/..", "/"], ["/a\\b", "/a/b"], ["/.", "/"], ["/", "/"], ["/a/.b/..c", "/a/.b/..c"], ["a/b", "a/b"]] as const) assert.equal(normalizePath(p), want, p);
  });
});

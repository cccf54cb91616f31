/**
 * torchtitan configs from forks and downstream repositories (../shared/corpus/wild/torchtitan, see
 * SOURCES.md there), issue #9: one test per file pinning the resolved version and its exact diagnostics
 * (code, 1-based line, severity, message part), each justified by torchtitan's source at the tag or
 * main-branch commit of the resolved date. The decoys (../shared/corpus/wild/decoys/*.toml) get nothing.
 *
 * Upstream sources cited below (pytorch/torchtitan):
 *  - ARGPARSE = torchtitan/config_manager.py at f6406898b (main, the last commit before 57387af0e removed
 *    float8.enable_float8_linear; the files resolve to main@2025-02-14). parse_args (L637-691) merges every
 *    TOML table into a dict with `args_dict[k] |= v` (L645-647) and never checks the names: upstream
 *    silently ignores a key it does not define. Its options are the `--section.key` arguments
 *    (metrics L122-160, model L162-187, training L210-...).
 *  - MANAGER = torchtitan/config/manager.py at v0.2.2: _dict_to_dataclass (L160-178) raises ValueError
 *    "Invalid field names in {cls} data" (L166-171) for a field the dataclass lacks; _validate_config
 *    (L183-192) warns that experimental.custom_args_module "is being moved to --job.custom_config_module".
 *
 * Every version-specific key these files use is valid at the resolved date (checked generically at the
 * end of each test): only keys no upstream release ever had are reported, as information before
 * 2025-08-28 unless a typo-close name exists.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { NO_ENV } from "../server/src/core/analysis";
import { analyzeDocument } from "../server/src/core/analyze";
import { keysAt } from "../server/src/core/frameworks/torchtitan/schema/index";
import { parseVersion } from "../server/src/core/frameworks/torchtitan/versions";
import { CORPUS, corpusAvailable, corpusSkip } from "./support/corpus";

const WILD = join(CORPUS, "wild/torchtitan");
const DECOYS = join(CORPUS, "wild/decoys");

interface Pin {
  code: string;
  /** 1-based line. */
  line: number;
  severity: "error" | "warning" | "information" | "hint";
  /** A part of the message. */
  message: string | RegExp;
}

interface Case {
  version: string;
  /** Keys the version inference must name. */
  decidedBy?: string[];
  diagnostics: Pin[];
}

/**
 * The eminorhan and garrett361 files of early 2025: `[training]` parallel degrees (ARGPARSE L244-283, moved
 * to [parallelism] on 2025-03-18 by 785c34c99), `experimental.pipeline_parallel_degree` (L311),
 * `float8.enable_float8_linear` (L579, removed by 57387af0e on 2025-02-15), `training.batch_size` (L220),
 * `training.warmup_steps` (L226), `model.norm_type` (L174), `checkpoint.interval_type` (L471) and
 * `checkpoint.model_weights_only` (L483) are all valid at main@2025-02-14: none is reported.
 */
const OLD_MAIN = "main@2025-02-14";

const CASES: Record<string, Case> = {
  // FSDP2 + TP: the PyTorch TP-mesh all-reduce note applies to every FSDP2+TP run, forks included (issue #30).
  "eminorhan__frontier-torchtitan__llama3_1b.toml": { version: OLD_MAIN, decidedBy: ["float8.enable_float8_linear", "training.data_parallel_shard_degree"], diagnostics: [{ code: "fsdp-tp-grad-allreduce-dtype", line: 35, severity: "information", message: "runs in bf16, not reduce_dtype float32" }] },
  // FSDP2 + TP: the PyTorch TP-mesh all-reduce note applies to every FSDP2+TP run, forks included (issue #30).
  "eminorhan__frontier-torchtitan__llama3_8b_n64.toml": { version: OLD_MAIN, decidedBy: ["float8.enable_float8_linear", "training.data_parallel_shard_degree"], diagnostics: [{ code: "fsdp-tp-grad-allreduce-dtype", line: 35, severity: "information", message: "runs in bf16, not reduce_dtype float32" }] },
  "eminorhan__frontier-torchtitan__llama3_8b_n8_benchmark.toml": { version: OLD_MAIN, decidedBy: ["float8.enable_float8_linear", "training.data_parallel_shard_degree"], diagnostics: [] },
  "eminorhan__torchtitan-mae__dinov3_vitl16_3D_linear_no_bf16.toml": {
    version: OLD_MAIN,
    diagnostics: [
      // ARGPARSE L122-187: [metrics] has no eval_freq, [model] has name, flavor, norm_type, tokenizer_path only
      // (the fork's ViT keys): names upstream never had, one fork-config note at the first (issue #17 §3).
      // ARGPARSE has no [data] table, and no extension mechanism yet (custom_args_module: 2025-03-20), so
      // this is not the VLM module's [data]: an unknown table, merged and ignored (L645-647); in a fork's file
      // it is one of the fork's tables, listed in the same note (one fork note per file).
      { code: "fork-config", line: 14, severity: "information", message: "torchtitan fork config: 9 names unknown to upstream main@2025-02-14, not checked: metrics.eval_freq, +8 more" },
      // mixed_precision_param = "float32" (ARGPARSE L414) under FSDP: fp32 compute. Pinned on the key only:
      // the message wording belongs to the engine (issue #9 §3).
      { code: "fp32-param-dtype", line: 44, severity: "information", message: "mixed_precision_param" },
    ],
  },
  // checkpoint.last_save_model_weights_only exists only from 2025-06-13 (cddd7dc80) to 2025-07-20
  // (beb29a1c7): v0.1.0 (2025-06-17), whose torchtitan/config_manager.py defines every key these files use.
  "facebookresearch__MuLoCo__ddp_180m.toml": { version: "v0.1.0", decidedBy: ["checkpoint.last_save_model_weights_only"], diagnostics: [] },
  "facebookresearch__MuLoCo__ddp_180m_1gpu.toml": { version: "v0.1.0", decidedBy: ["checkpoint.last_save_model_weights_only"], diagnostics: [] },
  "facebookresearch__MuLoCo__diloco_180m.toml": { version: "v0.1.0", decidedBy: ["checkpoint.last_save_model_weights_only"], diagnostics: [] },
  // metrics.disable_color_printing (ARGPARSE L133, the inverted name since 2024-12-20) bounds it from below.
  "garrett361__torchtitan__debug_model_bamba.toml": { version: OLD_MAIN, decidedBy: ["float8.enable_float8_linear", "metrics.disable_color_printing"], diagnostics: [] },
  "garrett361__torchtitan__llama3_70b_perf.toml": { version: OLD_MAIN, decidedBy: ["float8.enable_float8_linear", "training.data_parallel_shard_degree"], diagnostics: [] },
  "garrett361__torchtitan__llama3_8b_yarn-sft.toml": {
    version: OLD_MAIN,
    diagnostics: [
      // ARGPARSE L155: upstream has enable_wandb; "enable_ibm_wandb" is 4 edits away, and wandb_*, [training]
      // epochs/sum_loss (the fork's SFT loop, L210-283) and [dataset] (its data mixing) never existed upstream:
      // one fork-config note (issue #17 §3).
      { code: "fork-config", line: 17, severity: "information", message: "torchtitan fork config: 7 names upstream never had, not checked: metrics.enable_ibm_wandb" },
    ],
  },
  // checkpoint.load_only exists from 2025-10-05: the latest release in the window is v0.2.2.
  "garrett361__torchtitan__llama3_moe.toml": {
    version: "v0.2.2",
    decidedBy: ["checkpoint.load_only"],
    diagnostics: [
      // MANAGER L183-192: the field is copied to job.custom_config_module with a deprecation warning.
      { code: "deprecated-key", line: 3, severity: "warning", message: "experimental.custom_args_module is deprecated in torchtitan v0.2.2" },
    ],
  },
  "garrett361__torchtitan__llama3gdn_8b.toml": {
    version: "v0.2.2",
    decidedBy: ["job.print_config / job.custom_config_module"],
    diagnostics: [
      // MANAGER L166-171: JobConfig has no gdn_args field, upstream v0.2.2 would reject it; no torchtitan ever
      // had it, so it is the fork's (its custom module, not in the corpus): one fork-config note, no error.
      { code: "fork-config", line: 1, severity: "information", message: "torchtitan fork config: 1 name upstream never had, not checked: [gdn_args]" },
    ],
  },
};

const SCHEMA_CODES = new Set(["unknown-key", "unknown-section", "moved-key", "removed-key"]);

function analyzeFile(path: string) {
  return analyzeDocument(pathToFileURL(path).href, readFileSync(path, "utf8"), {}, NO_ENV);
}

describe("wild torchtitan configs (forks and downstream repositories)", { skip: corpusSkip("wild/torchtitan") }, () => {
  const files = corpusAvailable("wild/torchtitan") ? readdirSync(WILD).filter((n) => n.endsWith(".toml")).sort() : [];

  it("every file of the folder has a pinned case", () => {
    assert.deepEqual(files, Object.keys(CASES).sort());
  });

  for (const name of files) {
    it(name, () => {
      const c = CASES[name];
      assert.ok(c, `${name} has no pinned case`);
      const r = analyzeFile(join(WILD, name));
      assert.equal(r.framework, "torchtitan");
      assert.equal(r.torchtitanVersion?.value, c.version);
      for (const k of c.decidedBy ?? []) assert.ok(r.torchtitanVersion?.decidedBy?.includes(k), `${k} not in decidedBy ${JSON.stringify(r.torchtitanVersion?.decidedBy)}`);

      const got = r.diagnostics.map((d) => ({ code: d.code, line: d.range.start.line + 1, severity: d.severity, message: d.message }));
      assert.equal(got.length, c.diagnostics.length, `diagnostics:\n${got.map((g) => `${g.line} ${g.severity} [${g.code}] ${g.message}`).join("\n")}`);
      c.diagnostics.forEach((exp, i) => {
        const g = got[i]!;
        assert.equal(g.code, exp.code, `#${i}`);
        assert.equal(g.line, exp.line, `#${i} ${g.code}`);
        assert.equal(g.severity, exp.severity, `#${i} ${g.code} line ${g.line}`);
        if (typeof exp.message === "string") assert.ok(g.message.includes(exp.message), `#${i}: "${g.message}" lacks "${exp.message}"`);
        else assert.match(g.message, exp.message);
        assert.doesNotMatch(g.message, /the job fails/);
      });

      // No key valid at the resolved date is reported, and no key the inference relied on.
      const date = parseVersion(c.version)!.date;
      const valid = keysAt(date);
      for (const d of r.diagnostics.filter((x) => SCHEMA_CODES.has(x.code))) {
        const m = /^Unknown key "([^"]+)" in \[([^\]]+)\]/.exec(d.message);
        if (!m) continue;
        const key = `${m[2]}.${m[1]}`;
        assert.ok(!valid.has(key), `${key} is valid at ${date} but reported`);
        assert.ok(!(r.torchtitanVersion?.decidedBy ?? []).includes(key), `${key} decided the version but is reported`);
      }
    });
  }
});

describe("wild decoys: TOML files that are not training configs", { skip: corpusSkip("wild/decoys") }, () => {
  const files = corpusAvailable("wild/decoys") ? readdirSync(DECOYS).filter((n) => n.endsWith(".toml")).sort() : [];
  it("the folder has TOML decoys", () => assert.ok(files.length >= 1));
  for (const name of files) {
    it(`${basename(name)} gets nothing`, () => {
      const r = analyzeFile(join(DECOYS, name));
      assert.equal(r.framework, null, r.frameworkReason);
      assert.deepEqual(r.diagnostics, []);
    });
  }
});

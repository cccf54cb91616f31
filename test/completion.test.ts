/** Completion, key hovers, document symbols and folding from the versioned schema. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { complete } from "../server/src/core/features/completion";
import { parseTomlDocument } from "../server/src/core/parse/toml";
import { documentSymbols, foldingRanges } from "../server/src/core/features/symbols";
import { keyHoverMarkdown, keyHoverTargets } from "../server/src/core/frameworks/torchtitan/schema/hover";

/** `|` marks the cursor. */
function at(textWithCursor: string) {
  const i = textWithCursor.indexOf("|");
  const text = textWithCursor.slice(0, i) + textWithCursor.slice(i + 1);
  const before = text.slice(0, i).split("\n");
  return { doc: parseTomlDocument("file:///c.toml", text), pos: { line: before.length - 1, character: before[before.length - 1]!.length } };
}
const labels = (xs: { label: string }[]) => xs.map((x) => x.label);

describe("complete", () => {
  it("table names inside [ ], for the release, leaving out tables already there", () => {
    const { doc, pos } = at("[training]\nsteps = 1\n[quan|");
    const items = complete(doc, "v0.2.2", pos);
    assert.ok(labels(items).includes("quantize.linear.float8"));
    assert.ok(!labels(items).includes("training"));
    assert.ok(!labels(items).includes("float8"));
    const it0 = items.find((x) => x.label === "quantize.linear.float8")!;
    assert.equal(it0.insertText, "quantize.linear.float8]");
    assert.deepEqual(it0.range, { start: { line: 2, character: 1 }, end: { line: 2, character: 5 } });
    const old = complete(at("[training]\n[|").doc, "v0.1.0", at("[training]\n[|").pos);
    assert.ok(labels(old).includes("float8"));
    assert.ok(!labels(old).includes("quantize.linear.float8"));
  });
  it("keys of the current table with type, default and docs, minus the ones present", () => {
    const { doc, pos } = at("[training]\nsteps = 1\nmixed|\n");
    const items = complete(doc, "v0.2.2", pos);
    const mp = items.find((x) => x.label === "mixed_precision_param")!;
    assert.equal(mp.kind, "key");
    assert.equal(mp.detail, 'str = "bfloat16"');
    assert.equal(mp.insertText, 'mixed_precision_param = "bfloat16"');
    assert.ok(mp.documentation!.includes("**Precision:**"));
    assert.ok(!labels(items).includes("steps"));
    assert.ok(labels(items).includes("dataloader.num_workers"));
    assert.ok(!labels(complete(doc, "v0.1.0", pos)).includes("dtype"));
    assert.ok(labels(complete(doc, "v0.2.2", pos)).includes("dtype"));
  });
  it("allowed values after =, with the default preselected", () => {
    const { doc, pos } = at('[training]\nmixed_precision_param = |\n');
    const items = complete(doc, "v0.2.2", pos);
    assert.deepEqual(labels(items), ['"bfloat16"', '"float32"']);
    assert.equal(items[0]!.preselect, true);
    const q = at('[training]\nmixed_precision_param = "bf|"\n');
    const qi = complete(q.doc, "v0.2.2", q.pos)[0]!;
    assert.equal(qi.insertText, '"bfloat16"');
    assert.deepEqual(qi.range, { start: { line: 1, character: 24 }, end: { line: 1, character: 28 } });
    const b = at("[metrics]\nenable_wandb = |\n");
    assert.deepEqual(labels(complete(b.doc, "v0.2.2", b.pos)), ["true", "false"]);
  });
  it("converter names for the release, inside and outside the list", () => {
    const a = at('[model]\nconverters = ["|"]\n');
    const inList = complete(a.doc, "v0.2.2", a.pos);
    assert.ok(labels(inList).includes('"quantize.linear.float8"'));
    assert.ok(inList.every((x) => x.documentation));
    const b = at("[model]\nconverters = |\n");
    assert.ok(labels(complete(b.doc, "v0.1.0", b.pos)).includes('["float8"]'));
  });
  it("extension module keys when the config names the module", () => {
    const { doc, pos } = at('[job]\ncustom_config_module = "torchtitan.models.flux.job_config"\n[encoder]\n|\n');
    assert.ok(labels(complete(doc, "v0.2.2", pos)).includes("t5_encoder"));
  });
});

describe("hover", () => {
  it("type, default, meaning, since, precision", () => {
    const md = keyHoverMarkdown("v0.2.2", "training.dtype")!;
    assert.ok(md.includes("`str`"));
    assert.ok(md.includes('default `"float32"`'));
    assert.ok(md.includes("2025-09-16 (first release v0.2.0)"));
    assert.ok(md.includes("**Precision:**"));
    assert.ok(keyHoverMarkdown("v0.2.2", "training.steps")!.includes("Since v0.1.0 or earlier"));
  });
  it("old names say where the key went", () => {
    const md = keyHoverMarkdown("v0.2.2", "training.compile")!;
    assert.ok(md.includes("renamed to **compile.enable**"));
    assert.equal(keyHoverMarkdown("v0.2.2", "nope.nope"), undefined);
  });
  it("targets on every known key and header", () => {
    const doc = parseTomlDocument("file:///h.toml", "[training]\nsteps = 1\nbogus = 2\n[float8]\nemulate = true\n");
    const ts = keyHoverTargets(doc, "v0.2.2");
    assert.equal(ts.length, 3); // steps, float8.emulate (old name), [training]
    assert.ok(ts.some((t) => t.markdown.startsWith("**[training]**")));
  });
});

describe("symbols and folding", () => {
  const text = `# a
# b
[training]
steps = 1
converters = [
  "x",
]

# about the next table
[quantize.linear.float8]
emulate = true
`;
  const doc = parseTomlDocument("file:///s.toml", text);
  it("one symbol per table with its keys", () => {
    const s = documentSymbols(doc);
    assert.deepEqual(
      s.map((x) => [x.name, x.children.map((c) => c.name)]),
      [
        ["training", ["steps", "converters"]],
        ["quantize.linear.float8", ["emulate"]],
      ],
    );
    assert.equal(s[0]!.kind, "table");
    assert.equal(s[0]!.children[0]!.detail, "1");
  });
  it("folds tables, multi-line values and comment blocks", () => {
    assert.deepEqual(foldingRanges(doc), [
      { startLine: 0, endLine: 1, kind: "comment" },
      { startLine: 2, endLine: 6, kind: "region" },
      { startLine: 4, endLine: 6, kind: "region" },
      { startLine: 9, endLine: 10, kind: "region" },
    ]);
  });
});

// ---- transformers TrainingArguments / TRL / LLaMA-Factory keys (frameworks/transformers/keys.ts at the pins) ----
import { analyzeDocument } from "../server/src/core/analyze";
import { completionsAt } from "../server/src/core/features/index";
import { fakeEnv } from "./support/fakeEnv";

describe("transformers key completion at the pinned versions (keys.ts, one table with HF6)", () => {
  const PLAIN = "output_dir: out\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nlearning_rate: 1.0e-4\nnum_train_epochs: 1\n";
  const TRL = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\n";
  const at = (text: string, req: string, line: number, character: number, uri = "file:///w/a.yaml") =>
    completionsAt(analyzeDocument(uri, text, {}, fakeEnv({ "/w/requirements.txt": req }, uri.slice("file://".length))), { line, character });

  it("TrainingArguments at transformers 4.46.0 has `evaluation_strategy` (4.36.0–4.50.3: every release read); at 5.24.0 it is gone", () => {
    const old = at(`${PLAIN}eval\n`, "transformers==4.46.0\n", 5, 4);
    assert.deepEqual(old.map((i) => i.label), ["eval_accumulation_steps", "eval_delay", "eval_do_concat_batches", "eval_on_start", "eval_steps", "eval_strategy", "eval_use_gather_object", "evaluation_strategy"]);
    const now = at(`${PLAIN}eval\n`, "transformers==5.24.0\n", 5, 4);
    assert.deepEqual(now.map((i) => i.label), ["eval_accumulation_steps", "eval_delay", "eval_do_concat_batches", "eval_on_start", "eval_steps", "eval_strategy", "eval_use_gather_object"]);
    const e = old.find((i) => i.label === "evaluation_strategy")!;
    assert.equal(e.kind, "key");
    assert.equal(e.insertText, "evaluation_strategy: ");
    assert.deepEqual(e.range, { start: { line: 5, character: 0 }, end: { line: 5, character: 4 } });
    assert.equal(e.detail, "TrainingArguments · transformers 4.36.0–4.50.3");
    assert.match(e.documentation ?? "", /listed for transformers 4\.46\.0 \(table of 4\.45\.2\)/);
    // A pin between sampled releases reads the table of the sampled release below it.
    assert.match(at(`${PLAIN}eval\n`, "transformers==4.50.0\n", 5, 4).find((i) => i.label === "eval_strategy")!.documentation ?? "", /transformers 4\.50\.0 \(table of 4\.50\.0\)/);
  });

  it("TRL at 0.19.0 offers `max_seq_length` and `max_prompt_length`; at 1.9.0 `max_tool_calling_iterations` instead; keys written are left out", () => {
    assert.deepEqual(at(`${TRL}max_\n`, "trl==0.19.0\ntransformers==4.57.1\n", 5, 4).map((i) => i.label), ["max_completion_length", "max_density_ratio", "max_grad_norm", "max_length", "max_new_tokens", "max_prompt_length", "max_seq_length", "max_steps", "max_workers"]);
    assert.deepEqual(at(`${TRL}max_\n`, "trl==1.9.0\ntransformers==5.24.0\n", 5, 4).map((i) => i.label), ["max_completion_length", "max_grad_norm", "max_length", "max_steps", "max_tool_calling_iterations"]);
    assert.deepEqual(at(`${TRL}max_steps: 10\nmax_\n`, "trl==1.9.0\n", 6, 4).map((i) => i.label), ["max_completion_length", "max_grad_norm", "max_length", "max_tool_calling_iterations"]);
    // No pin: the newest tables, and the documentation says so.
    assert.match(at(`${TRL}max_l\n`, "", 5, 5)[0]!.documentation ?? "", /listed for TRL 1\.9\.0 \(table of v1\.9\.0, assumed: no pin found\)/);
  });

  it("LLaMA-Factory's own fields; only at the top level; JSON argument files get quoted keys", () => {
    const LF = "model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: full\ndataset: identity\ntemplate: qwen3\noutput_dir: saves/x\n";
    assert.deepEqual(at(`${LF}pure_\n`, "", 7, 5).map((i) => [i.label, i.detail]), [["pure_bf16", "LLaMA-Factory FinetuningArguments"]]);
    assert.deepEqual(at(`${LF}fsdp_config:\n  vers\n`, "", 8, 6), []);
    const json = `{\n  "output_dir": "out",\n  "per_device_train_batch_size": 4,\n  "gradient_accumulation_steps": 2,\n  "learning_rate": 1e-4,\n  "bf16_f"\n}\n`;
    const items = at(json, "transformers==5.24.0\n", 5, 9, "file:///w/args.json");
    assert.deepEqual(items.map((i) => [i.label, i.insertText]), [["bf16_full_eval", '"bf16_full_eval": ']]);
    // The auto-closed quote after the cursor is replaced too.
    assert.deepEqual(items[0]!.range, { start: { line: 5, character: 2 }, end: { line: 5, character: 10 } });
  });
});

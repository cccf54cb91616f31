/** Axolotl: detection, resolution and AX1–AX8 (spec other-frameworks.md §4), fixture style. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { checkDiagnostics, checkFix } from "./support/fixture";

const uri = "file:///x/axolotl.yaml";
const base = "base_model: x/y\ndatasets:\n  - path: a\n    type: alpaca\nsequence_len: 512\n";


/** The smallest Axolotl config the detector accepts; each fixture adds the keys it is about. */
const BASE = "base_model: meta-llama/Llama-3.2-1B\ndatasets:\n  - path: tatsu-lab/alpaca\n    type: alpaca\nsequence_len: 1024\n";

describe("Axolotl diagnostics", () => {
  it("AX1 `bf16: full` is rejected by the schema of the assumed newest release (a warning naming it); `bf16_full_eval` is ignored", () => {
    // framework=axolotl layout=single GPU / DDP mech=error P=float32 C=float32 R=float32 ws=undefined
    checkDiagnostics(
      `base_model: meta-llama/Llama-3.1-8B
datasets:
  - path: tatsu-lab/alpaca
    type: alpaca
sequence_len: 2048
adapter: lora
bf16: full
      #^^^ warning[axolotl/invalid-bf16-value]: \`bf16: full\` is rejected by
bf16_full_eval: true
#^^^^^^^^^^^^^ warning[axolotl/invalid-bf16-value]: \`bf16_full_eval\` is not an Axolotl config key: Axolotl ignores it
`,
      { uri },
    );
  });

  it("AX1 `bf16: full` by the pinned Axolotl: valid before the pydantic schema (v0.5.0), an error from it (issue #17)", () => {
    const text = `${BASE}adapter: lora\nbf16: full\n`;
    const env = (req: string) => ({ readFile: (p: string) => (p === "/x/requirements.txt" ? req : undefined), listDir: (d: string) => (d === "/x" ? ["requirements.txt"] : []), documentPath: "/x/axolotl.yaml", workspaceRoots: ["/x"] });
    const ax1 = (req: string) => analyzeDocument(uri, text, {}, env(req)).diagnostics.filter((d) => d.code === "axolotl/invalid-bf16-value").map((d) => [d.severity, d.message.slice(0, 40)]);
    assert.deepEqual(ax1("axolotl==0.4.0\n"), []);
    assert.deepEqual(ax1("axolotl==0.6.0\n"), [["error", "`bf16: full` is rejected by Axolotl's co"]]);
    const unpinned = analyzeDocument(uri, text).diagnostics.find((d) => d.code === "axolotl/invalid-bf16-value")!;
    assert.equal(unpinned.severity, "warning");
    assert.match(unpinned.message, /^Assuming axolotl v0\.18\.0/);
  });

  it("ignored-deepspeed-config: a `deepspeed_config:` block is dropped by Axolotl's schema (its key is `deepspeed`): a warning with a rename; with `deepspeed` set, that key decides (issue #31 §2)", () => {
    const base = "base_model: meta-llama/Llama-3.1-8B\ndatasets:\n  - path: x\n    type: alpaca\nmicro_batch_size: 2\nnum_epochs: 1\nlearning_rate: 0.0002\nbf16: true\noutput_dir: out\n";
    const text = `${base}deepspeed_config:\n  zero_optimization:\n    stage: 3\n`;
    const r = analyzeDocument("file:///w/ax.yaml", text);
    const d = r.diagnostics.filter((x) => x.code === "axolotl/ignored-deepspeed-config");
    assert.deepEqual(d.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.character]), [["warning", 9, 0, 16]]);
    assert.equal(d[0]!.message, "`deepspeed_config` is not an Axolotl key: Axolotl drops it and DeepSpeed ZeRO-3 does not run (the key is `deepspeed`)");
    assert.match(JSON.stringify(d[0]!.data), /"newText":"deepspeed"/);
    // The run is not DeepSpeed: the headline says so.
    assert.equal(r.mechanism, "autocast");
    const both = analyzeDocument("file:///w/ax.yaml", `${text}deepspeed: deepspeed_configs/zero2.json\n`).diagnostics.filter((x) => x.code === "axolotl/ignored-deepspeed-config");
    assert.deepEqual(both.map((x) => x.message), ["`deepspeed_config` is not an Axolotl key: Axolotl drops it and the `deepspeed` key decides"]);
    assert.equal(both[0]!.data, undefined);
    assert.deepEqual(analyzeDocument("file:///w/ax.yaml", `${base}deepspeed: deepspeed_configs/zero2.json\n`).diagnostics.filter((x) => x.code === "axolotl/ignored-deepspeed-config"), []);
  });

  it("AX2 bf16 + fp16, AX3 bfloat16 without bf16: false", () => {
    // framework=axolotl layout=single GPU / DDP mech=autocast P=float32 C=bfloat16 R=float32 ws=undefined
    checkDiagnostics(
      `base_model: meta-llama/Llama-3.1-8B
datasets:
  - path: tatsu-lab/alpaca
    type: alpaca
micro_batch_size: 2
adapter: qlora
load_in_4bit: true
bf16: true
fp16: true
      #^^^ warning[axolotl/bf16-and-fp16]: \`bf16: true\` and \`fp16: true\`
bfloat16: true
          #^^^ information[axolotl/load-dtype-only]: \`bfloat16: true\` only sets the
`,
      { uri },
    );
  });

  it("AX4 [inferred] full fine-tune in bf16 has no fp32 master (information)", () => {
    // framework=axolotl layout=single GPU / DDP mech=autocast P=bfloat16 C=bfloat16 R=bfloat16 ws=undefined
    checkDiagnostics(
      `${BASE}bf16: auto
      #^^^ information[axolotl/pure-bf16]: Full fine-tune with bf16
`,
      { uri },
    );
  });

  it("AX6 fp16 full fine-tune", () => {
    // framework=axolotl layout=single GPU / DDP mech=autocast P=float16 C=float16 R=float16 ws=undefined
    checkDiagnostics(
      `${BASE}bf16: false
fp16: true
      #^^^ warning[axolotl/fp16-full-finetune]: \`fp16: true\` on a full
`,
      { uri },
    );
  });

  it("AX5 fp8 all-gather / fp32_norms without FSDP2, DeepSpeed with FSDP; AX7 legacy fsdp list and prefixed keys", () => {
    // framework=axolotl layout=FSDP1 mech=error P=float32 C=bfloat16 R=float32 ws=undefined
    checkDiagnostics(
      `${BASE}adapter: lora
fp8_enable_fsdp_float8_all_gather: true
#^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error[axolotl/fsdp-option-conflict]: \`fp8_enable_fsdp_float8_all_gather\` requires \`fsdp_version: 2\`: Axolotl
fp32_norms: true
#^^^^^^^^^ error[axolotl/fsdp-option-conflict]: \`fp32_norms\` requires \`fsdp_config\` with \`fsdp_version:
deepspeed: deepspeed_configs/zero2.json
#^^^^^^^^ error[axolotl/fsdp-option-conflict]: \`deepspeed\` together with \`fsdp\`: use
fsdp:
#^^^ warning[axolotl/deprecated-fsdp1-syntax]: The \`fsdp:\` list is the
  - full_shard
  - auto_wrap
fsdp_config:
#^^^^^^^^^^ warning[axolotl/deprecated-fsdp1-syntax]: \`fsdp_config\` uses deprecated \`fsdp_\`-prefixed keys
  fsdp_offload_params: true
  fsdp_state_dict_type: FULL_STATE_DICT
`,
      { uri },
    );
  });

  it("AX7: an empty `fsdp: []` configures nothing, so there is no legacy list to report", () => {
    const r = analyzeDocument(uri, `${BASE}adapter: lora\nbf16: true\ndeepspeed:\nfsdp: []\n`);
    assert.deepEqual(r.diagnostics.filter((d) => d.code === "axolotl/deprecated-fsdp1-syntax"), []);
  });

  it("AX8 bitsandbytes 8-bit optimizer with FSDP2", () => {
    // framework=axolotl layout=FSDP2 mech=error P=float32 C=bfloat16 R=float32 ws=undefined
    checkDiagnostics(
      `${BASE}adapter: lora
optimizer: adamw_bnb_8bit
           #^^^^^^^^^^^^^ error[axolotl/bitsandbytes-fsdp2]: \`optimizer: adamw_bnb_8bit\` (bitsandbytes) with FSDP2:
bf16: true
fsdp_version: 2
fsdp_config:
  offload_params: false
`,
      { uri },
    );
  });
});

describe("Axolotl quick fixes", () => {
  const opts = { uri };
  const lora = `${base}adapter: lora\n`;
  it("AX1: bf16: full → true", () => checkFix(`${lora}bf16: full\n`, "axolotl/invalid-bf16-value", "true", `${lora}bf16: true\n`, opts));
  it("AX1: remove bf16_full_eval", () => checkFix(`${lora}bf16_full_eval: true\n`, "axolotl/invalid-bf16-value", "Remove", lora, opts));
  it("AX2: remove fp16", () => checkFix(`${lora}bf16: true\nfp16: true\n`, "axolotl/bf16-and-fp16", "Remove", `${lora}bf16: true\n`, opts));
  it("AX3: bf16: false for no AMP", () => checkFix(`${lora}bf16: auto\nbfloat16: true\n`, "axolotl/load-dtype-only", "bf16: false", `${lora}bf16: false\nbfloat16: true\n`, opts));
  it("AX3: adds bf16: false when absent", () => checkFix(`${lora}bfloat16: true\n`, "axolotl/load-dtype-only", "bf16: false", `${lora}bfloat16: true\nbf16: false\n`, opts));
  it("AX6: fp16 → bf16", () => checkFix(`${base}bf16: false\nfp16: true\n`, "axolotl/fp16-full-finetune", "bf16", `${base}bf16: true\nfp16: false\n`, { uri, ignore: ["axolotl/pure-bf16"] }));
  it("AX7: legacy fsdp list → fsdp_version: 2", () =>
    checkFix(`${lora}fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  offload_params: true\n`, "axolotl/deprecated-fsdp1-syntax", "fsdp_version: 2", `${lora}fsdp_version: 2\nfsdp_config:\n  offload_params: true\n`, opts));
  it("AX7: strip fsdp_ prefixes", () =>
    checkFix(`${lora}fsdp_version: 2\nfsdp_config:\n  fsdp_offload_params: true\n  fsdp_state_dict_type: FULL_STATE_DICT\n`, "axolotl/deprecated-fsdp1-syntax", "Strip", `${lora}fsdp_version: 2\nfsdp_config:\n  offload_params: true\n  state_dict_type: FULL_STATE_DICT\n`, opts));
  it("AX8: → adamw_torch_8bit", () =>
    checkFix(`${lora}optimizer: adamw_8bit\nfsdp_version: 2\nfsdp_config:\n  offload_params: false\n`, "axolotl/bitsandbytes-fsdp2", "adamw_torch_8bit", `${lora}optimizer: adamw_torch_8bit\nfsdp_version: 2\nfsdp_config:\n  offload_params: false\n`, opts));
});

describe("Axolotl resolution", () => {
  it("full fine-tune on FSDP2 is pure bf16; the HSDP+TP layout comes from the sizes", () => {
    const r = analyzeDocument(uri, `${base}bf16: true\nfsdp_version: 2\nfsdp_config:\n  reshard_after_forward: true\ndp_shard_size: 4\ndp_replicate_size: 2\ntensor_parallel_size: 2\n`);
    assert.equal(r.framework, "axolotl");
    assert.match(r.frameworkReason, /base_model/);
    assert.equal(r.layoutName, "HSDP+TP");
    assert.equal(r.worldSize?.value, 16);
    assert.deepEqual(r.parallel, { dp_replicate: 2, dp_shard: 4, cp: 1, tp: 2, pp: 1, ep: 1, etp: 1 });
    assert.deepEqual([r.precision?.paramStorage.dtype, r.precision?.compute.dtype, r.precision?.gradReduce.dtype], ["bfloat16", "bfloat16", "bfloat16"]);
    assert.ok(r.hovers.some((h) => /axolotl-no-upcast/.test(h.markdown)));
  });
  it("LoRA: fp32 adapters under bf16 autocast", () => {
    const r = analyzeDocument(uri, `${base}adapter: lora\nbf16: auto\n`);
    assert.equal(r.mechanism, "autocast");
    assert.equal(r.precision?.paramStorage.dtype, "float32");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
    assert.deepEqual(r.diagnostics, []);
  });
  it("gptq-style bf16: false + float16: true: no AMP, fp16 load", () => {
    const r = analyzeDocument(uri, `${base}adapter: lora\nbf16: false\nfp16: false\nfloat16: true\n`);
    assert.equal(r.mechanism, "none");
    assert.equal(r.precision?.compute.dtype, "float16");
  });
});

describe("Axolotl: `fp16: true` turns `bf16: auto` off (issue #17 §5)", () => {
  // axolotl src/axolotl/utils/config/__init__.py resolve_dtype (00ce888): the bf16 detection runs only when
  // fp16 is not set, and "if cfg.fp16 and cfg.bf16 == 'auto': cfg.bf16 = False".
  for (const bf16 of ["bf16: auto\n", ""]) {
    it(`LoRA with fp16: true and ${bf16 ? "bf16: auto" : "bf16 unset (auto)"} computes in fp16`, () => {
      const r = analyzeDocument(uri, BASE + "adapter: lora\nlora_r: 8\n" + bf16 + "fp16: true\n");
      assert.equal(r.framework, "axolotl");
      assert.equal(r.precision?.compute.dtype, "float16");
      assert.ok(!r.diagnostics.some((d) => /bf16/.test(d.message) && !/fp16/.test(d.message)), JSON.stringify(r.diagnostics.map((d) => d.message)));
    });
  }
  it("bf16: true beside fp16: true stays bf16 (fp16 is then turned off)", () => {
    const r = analyzeDocument(uri, BASE + "adapter: lora\nlora_r: 8\nbf16: true\nfp16: true\n");
    assert.equal(r.precision?.compute.dtype, "bfloat16");
  });
});

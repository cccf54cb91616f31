/**
 * The language server re-analyses a config when a file it links changes (server.ts `readsOf` /
 * `scheduleDependents`): the three-file case (a TRL config launched by a run script with an accelerate config
 * whose DeepSpeed JSON sets an explicit value) over stdio. An unsaved edit of the open JSON counts (the env reads
 * open buffers first); closing it falls back to the disk. Waits on notifications with timeouts; never sleeps.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { SERVER_BUNDLE, TestLspClient } from "./support/lspClient";

const skip = existsSync(SERVER_BUNDLE) ? false : `${SERVER_BUNDLE} not built (npm run build)`;

const TRL = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: trl-lib/Capybara\noutput_dir: out\nlearning_rate: 2.0e-5\nper_device_train_batch_size: 2\ntorch_dtype: bfloat16\nbf16: true\ngradient_accumulation_steps: 4\n";
const DS = (gas: string) => `{\n  "zero_optimization": {"stage": 3},\n  "bf16": {"enabled": "auto"},\n  "gradient_accumulation_steps": ${gas},\n  "train_micro_batch_size_per_gpu": "auto"\n}\n`;
const FILES: Record<string, string> = {
  "scripts/train.sh": "#!/bin/bash\naccelerate launch --config_file recipes/accelerate_configs/zero3.yaml scripts/sft.py --config recipes/sft/config.yaml\n",
  "recipes/accelerate_configs/zero3.yaml": "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: recipes/ds/zero3.json\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n",
  "recipes/ds/zero3.json": DS("2"),
  "recipes/sft/config.yaml": TRL,
};

describe("language server: a linked file's edit re-analyses the config that reads it", { skip }, () => {
  let client: TestLspClient;
  let root: string;
  let yamlUri: string;
  let jsonUri: string;
  const hf3 = (p: { diagnostics: { code?: unknown }[] }) => p.diagnostics.filter((d) => d.code === "transformers/deepspeed-value-mismatch");

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "pl-linked-"));
    mkdirSync(join(root, ".git"));
    for (const [rel, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    yamlUri = pathToFileURL(join(root, "recipes/sft/config.yaml")).href;
    jsonUri = pathToFileURL(join(root, "recipes/ds/zero3.json")).href;
    client = new TestLspClient();
    await client.initialize([{ uri: pathToFileURL(root).href, name: "w" }]);
  });
  after(async () => {
    await client?.shutdown();
    rmSync(root, { recursive: true, force: true });
  });

  it("the TRL config gets HF3 (error) with relatedInformation at the JSON's value", async () => {
    const waiting = client.waitForDiagnostics(yamlUri);
    await client.open(yamlUri, TRL, "yaml");
    const p = await waiting;
    const [d] = hf3(p) as { severity: number; message: string; range: { start: { line: number } }; relatedInformation?: { location: { uri: string; range: { start: { line: number } } }; message: string }[] }[];
    assert.equal(d?.severity, 1);
    assert.equal(d!.range.start.line, 7);
    assert.match(d!.message, /^recipes\/ds\/zero3\.json sets `gradient_accumulation_steps: 2` but `gradient_accumulation_steps: 4` here/);
    assert.deepEqual(d!.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line, r.message]), [[jsonUri, 3, "gradient_accumulation_steps is set here"]]);
  });

  it("an unsaved edit of the open JSON to \"auto\" re-publishes the config without HF3; closing the JSON brings the disk's value back", async () => {
    await client.open(jsonUri, DS("2"), "json");
    const cleared = client.waitForDiagnostics(yamlUri, (p) => hf3(p).length === 0);
    await client.change(jsonUri, 2, DS('"auto"'));
    await cleared;
    const back = client.waitForDiagnostics(yamlUri, (p) => hf3(p).length === 1);
    await client.conn.sendNotification("textDocument/didClose", { textDocument: { uri: jsonUri } });
    await back;
  });
});

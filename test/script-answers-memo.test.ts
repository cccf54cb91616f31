/**
 * Run-script answers kept per script text (issue #36, core/workspace/worldSize.ts `perText`): every config of a
 * folder asks the same scripts the same questions, so the answers are computed once per text and question. The
 * key must hold every input: one script that runs two configs with different entry points, or names a config
 * through a folder variable, answers each question on its own, in any order and when asked again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { customEntryPoint, namingRank } from "../server/src/core/workspace/worldSize";

const SCRIPT = [
  "#!/bin/bash",
  'LOG_DIR="/ws/runs/exp1"',
  "torchrun --nproc_per_node 8 -m forkpkg.train --job.config_file a.toml",
  "torchrun --nproc_per_node 8 -m torchtitan.train --job.config_file b.toml",
  'python3 ./tools/other_train.py --job.config_file "${LOG_DIR}/c.toml"',
  "# torchrun -m never.run --job.config_file d.toml",
  "",
].join("\n");

describe("run-script answers per text and question", () => {
  it("customEntryPoint: each config its own entry point, in either order, asked twice", () => {
    for (const order of [["a.toml", "b.toml", "c.toml", "d.toml"], ["d.toml", "c.toml", "b.toml", "a.toml"]]) {
      for (let round = 0; round < 2; round++) {
        const got = Object.fromEntries(order.map((c) => [c, customEntryPoint(SCRIPT, c)]));
        assert.deepEqual(got, { "a.toml": "-m forkpkg.train", "b.toml": undefined, "c.toml": "./tools/other_train.py", "d.toml": undefined }, `order ${order.join(",")}, round ${round}`);
      }
    }
    // Another text with the same config name is its own entry.
    assert.equal(customEntryPoint(SCRIPT.replace("forkpkg.train", "otherpkg.main"), "a.toml"), "-m otherpkg.main");
    assert.equal(customEntryPoint(SCRIPT, "a.toml"), "-m forkpkg.train");
  });

  it("namingRank: the config's folders and the script's folder are part of the question", () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(namingRank(SCRIPT, "a.toml"), 0, "passed as the config");
      assert.equal(namingRank(SCRIPT, "d.toml"), undefined, "only a comment names it");
      // `${LOG_DIR}/c.toml` names c.toml of /ws/runs/exp1 only.
      assert.equal(namingRank(SCRIPT, "c.toml", ["ws", "runs", "exp1"], "/ws"), 1, "the variable expands to the config's folder: a mention");
      assert.equal(namingRank(SCRIPT, "c.toml", ["ws", "runs", "exp2"], "/ws"), undefined, "another folder's c.toml");
      assert.equal(namingRank(SCRIPT, "c.toml"), 1, "no folders given: the name alone");
    }
  });
});

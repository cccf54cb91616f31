/**
 * keep-latest-k: checkpoint.keep_latest_k = 1 (or negative): torchtitan raises ValueError.
 *
 * seed-checkpoint: A seed checkpoint needs checkpointing enabled and a single-rank layout.
 *
 * validation-steps: validation.steps must be positive or -1.
 *
 * Checkpoint and validation settings torchtitan rejects at launch (spec torchtitan.md §3.3):
 *  - keep-latest-k: checkpoint.keep_latest_k = 1 → ValueError (0 keeps all, otherwise at least 2).
 *  - seed-checkpoint: create_seed_checkpoint needs a single device ("Must create seed checkpoint using a
 *    single device, to disable sharding.") and checkpointing on ("Must enable checkpointing when creating
 *    a seed checkpoint.").
 *  - validation-steps: validation.steps must be > 0 or -1 ("validation steps must be positive or -1").
 */
import { decidedBy } from "../related";
import { diag, fix } from "../../../diagnostics/build";
import { setKey } from "../../../edit/toml";
import { intValue } from "../../../model/document";
import { findLeaf as findEntry } from "../schema/facts";
import type { Diagnostic } from "../../../model/types";
import type { TitanRule } from "../context";

export const keepLatestK: TitanRule = {
  codes: ["keep-latest-k"],
  restsOn: ["version"],
  run(ctx) {
    const e = findEntry(ctx.doc, "checkpoint", "keep_latest_k");
    const k = intValue(e);
    if (!e || k === undefined || (k !== 1 && k >= 0)) return [];
    return [
      diag("keep-latest-k", "error", e.value.range, `checkpoint.keep_latest_k = ${k} is invalid: torchtitan raises ValueError (use 0 to keep every checkpoint, or 2 or more)`, {
        fixes: [fix("Change to 2", [{ range: e.value.range, newText: "2" }], true), fix("Change to 0 (keep all)", [{ range: e.value.range, newText: "0" }])],
      }),
    ];
  },
};

export const seedCheckpoint: TitanRule = {
  codes: ["seed-checkpoint"],
  restsOn: ["worldSize", "version"],
  run(ctx) {
    const e = findEntry(ctx.doc, "checkpoint", "create_seed_checkpoint");
    if (e?.value.value !== true) return [];
    const out: Diagnostic[] = [];
    const date = ctx.version.value.date;
    const enableKey = date < "2025-08-22" ? "enable_checkpoint" : "enable";
    const en = findEntry(ctx.doc, "checkpoint", enableKey);
    if (en?.value.value !== true) {
      out.push(
        diag("seed-checkpoint", "error", e.value.range, `create_seed_checkpoint needs checkpoint.${enableKey} = true: torchtitan asserts it`,
          { fixes: [fix(`Set checkpoint.${enableKey} = true`, setKey(ctx.doc, ["checkpoint"], enableKey, "true"), true)] },
          { detail: `create_seed_checkpoint needs checkpoint.${enableKey} = true: torchtitan asserts "Must enable checkpointing when creating a seed checkpoint."` },
        ),
      );
    }
    // With no world-size evidence (run_train.sh's NGPU=8 default) the launch command decides; stay quiet.
    if (ctx.worldSize.value !== 1 && ctx.worldSize.source !== "default") {
      out.push(
        diag(
          "seed-checkpoint",
          "error",
          e.value.range,
          `create_seed_checkpoint needs a single device, but the world size is ${ctx.worldSize.value}: torchtitan asserts it`,
          undefined,
          {
            detail: `create_seed_checkpoint needs a single device, but the world size is ${ctx.worldSize.value} (${ctx.worldSize.detail}): torchtitan asserts "Must create seed checkpoint using a single device, to disable sharding." Run it with NGPU=1.`,
            related: decidedBy(ctx, { worldSize: true }),
          },
        ),
      );
    }
    return out;
  },
};

export const validationSteps: TitanRule = {
  codes: ["validation-steps"],
  restsOn: ["version"],
  run(ctx) {
    const e = findEntry(ctx.doc, "validation", "steps");
    const s = intValue(e);
    if (!e || s === undefined || s > 0 || s === -1) return [];
    return [diag("validation-steps", "error", e.value.range, `validation.steps = ${s} is invalid: torchtitan requires a positive number or -1`, { fixes: [fix("Change to -1 (whole dataset)", [{ range: e.value.range, newText: "-1" }], true)] }, { detail: `validation.steps = ${s} is invalid: torchtitan raises ValueError "validation steps must be positive or -1".` })];
  },
};

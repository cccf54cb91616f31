/**
 * axolotl/ignored-deepspeed-config: A `deepspeed_config:` block in an Axolotl config: Axolotl never reads it (its key is `deepspeed`), so DeepSpeed does not run.
 *
 * Axolotl's DeepSpeed key is `deepspeed` (a path or the config itself as a mapping: `deepspeed: str | dict[str, Any] |
 * None`, utils/schemas/config.py:1032@v0.18.0, :246@v0.8.0; utils/config/models/input/v0_4_1/__init__.py:709@v0.5.0).
 * `deepspeed_config` is no field of `AxolotlInputConfig`, whose pydantic model keeps the default `extra="ignore"`
 * (`model_config = {"populate_by_name": True}`, config.py:212@v0.18.0), and `validate_config` returns the validated
 * model's `model_dump(exclude_none=True)` (utils/config/__init__.py:439-499@v0.18.0): the block is dropped without a
 * word and the trainer reads `cfg.deepspeed` alone (utils/trainer.py:669-678@v0.18.0). The run is then not DeepSpeed:
 * one GPU or DDP (or FSDP when set), with no ZeRO partitioning and no fp32 master partitions. A warning on the key,
 * with a rename to `deepspeed` when that key is not set.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AxolotlContext } from "../context";

export const ignoredDeepspeedConfig: FrameworkRule<AxolotlContext> = {
  codes: ["axolotl/ignored-deepspeed-config"],
  restsOn: [],
  run({ v, dsOn }) {
    const d = diagnostics("axolotl");
    const range = v.keyRange("deepspeed_config");
    if (!range) return d.out;
    const stage = v.num("deepspeed_config", "zero_optimization", "stage");
    const runs = dsOn ? "the `deepspeed` key decides" : `DeepSpeed${stage !== undefined ? ` ZeRO-${stage}` : ""} does not run`;
    d.add("ignored-deepspeed-config", "warning", range, `\`deepspeed_config\` is not an Axolotl key: Axolotl drops it and ${runs}${dsOn ? "" : " (the key is `deepspeed`)"}`,
      dsOn ? undefined : [fix("Rename to `deepspeed`", [{ range, newText: "deepspeed" }], true)], undefined,
      `Axolotl reads DeepSpeed from \`deepspeed\` (a path to a DeepSpeed JSON or the config as a mapping). \`deepspeed_config\` is not a field of its config schema, which drops unknown keys without a word, so ${dsOn ? "this block is ignored and the `deepspeed` key alone configures DeepSpeed" : "the run has no DeepSpeed: no ZeRO partitioning and no fp32 master partitions; the precision is Axolotl's own (`bf16`/`fp16`)"}.`);
    return d.out;
  },
};

/**
 * deepspeed/batch-size-product: The batch-size trio does not multiply out.
 *
 * The batch trio (train batch = micro batch × accumulation × world size).
 */
import { fitMessage } from "../../../diagnostics/build";
import { restingOn } from "../../../provenance";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const batchSizeProduct: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/batch-size-product"],
  // Not a multiple of micro × accumulation fails on every world size; the equality with one rests on it.
  restsOn: [],
  run({ v, f, worldSize }) {
    const d = diagnostics("deepspeed");
    if (f.trainBatch !== undefined && f.micro !== undefined) {
      const gas = f.gas ?? 1;
      const e = v.entry("train_batch_size")!;
      if (f.trainBatch % (f.micro * gas) !== 0) {
        d.add("batch-size-product", "error", e.value.range, { message: `train_batch_size (${f.trainBatch}) is not a multiple of micro batch × accumulation (${f.micro} × ${gas}): DeepSpeed asserts`, detail: `train_batch_size (${f.trainBatch}) is not a multiple of train_micro_batch_size_per_gpu × gradient_accumulation_steps (${f.micro} × ${gas}); DeepSpeed asserts train_batch_size = micro × accumulation × world size for every world size.` });
      } else if (worldSize && worldSize.source !== "batch-trio" && f.trainBatch !== f.micro * gas * worldSize.value) {
        d.add("batch-size-product", "error", e.value.range, { message: fitMessage(`train_batch_size (${f.trainBatch}) ≠ ${f.micro} × ${gas} × ${worldSize.value} (micro × accumulation × world size): DeepSpeed asserts`), detail: `train_batch_size (${f.trainBatch}) ≠ ${f.micro} × ${gas} × ${worldSize.value} (micro batch × accumulation × world size, world size ${worldSize.detail}); DeepSpeed asserts they are equal.` }, [
          fix(`Set train_batch_size to ${f.micro * gas * worldSize.value}`, [replaceValue(e, String(f.micro * gas * worldSize.value))], true),
        ]);
        restingOn(d.out[d.out.length - 1]!, ["worldSize"]);
      }
    }
    return d.out;
  },
};

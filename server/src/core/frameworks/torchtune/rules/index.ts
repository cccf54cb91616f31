/** The torchtune rules (spec other-frameworks.md §1.5), in the order they report. Adding a rule: a file here and a line below. */
import { looksBoolKey } from "../../common/yamlBooleans";
import { parseNotesRule, yamlBooleansRule, type FrameworkRule } from "../../common/rule";
import type { TorchtuneContext } from "../context";
import { fp16TrainingRejected } from "./fp16-training-rejected";
import { cpuOffloadWithoutFusedAdamw } from "./cpu-offload-without-fused-adamw";
import { cpuOffloadKeyIgnored } from "./cpu-offload-key-ignored";
import { parallelDimsProduct } from "./parallel-dims-product";
import { unknownDtype } from "./unknown-dtype";
import { pureBf16 } from "./pure-bf16";
import { optimizerInBwdClippingAccumulation } from "./optimizer-in-bwd-clipping-accumulation";
import { optimizerInBwdCompile } from "./optimizer-in-bwd-compile";
import { tensorParallelPlan } from "./tensor-parallel-plan";
import { offloadWithoutCheckpointing } from "./offload-without-checkpointing";
import { bitsandbytesDistributed } from "./bitsandbytes-distributed";
import { replicateOnlyDataParallel } from "./replicate-only-data-parallel";

export const TORCHTUNE_RULES: readonly FrameworkRule<TorchtuneContext>[] = [
  parseNotesRule("torchtune"),
  unknownDtype,
  fp16TrainingRejected,
  pureBf16,
  optimizerInBwdClippingAccumulation,
  optimizerInBwdCompile,
  tensorParallelPlan,
  offloadWithoutCheckpointing,
  bitsandbytesDistributed,
  replicateOnlyDataParallel,
  cpuOffloadWithoutFusedAdamw,
  cpuOffloadKeyIgnored,
  parallelDimsProduct,
  yamlBooleansRule("torchtune", () => false, looksBoolKey),
];

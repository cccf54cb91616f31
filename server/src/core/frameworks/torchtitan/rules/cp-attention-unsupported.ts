/**
 * cp-attention-unsupported: Context parallelism with an attention backend or load balancer torchtitan refuses
 * (varlen; ptrr with SDPA).
 *
 * Context parallelism with an attention backend or load balancer that torchtitan's
 * llama3 refuses (spec torchtitan.md §3.3, 2026-12 review). Read from `model.flavor` (engine/models.ts
 * LLAMA3_FLAVORS: *_flex_attn / *_flex → flex, *_varlen_attn / *_varlen → varlen, others SDPA):
 *  - 2025-07-22 (177b295d2) … 2026-01-20: CP with any backend but SDPA raises NotImplementedError "CP support
 *    for FlexAttention is still in progress." while the model args are built (v0.2.0
 *    torchtitan/models/llama3/model/args.py:58-61, v0.2.1 :57-63);
 *  - from 2026-01-20 (1e8f9acd1 / 0a2107f98, so v0.2.2): flex works, varlen raises NotImplementedError
 *    (v0.2.2 models/llama3/model/args.py:57-65), and `context_parallel_load_balancer = "ptrr"` with SDPA raises
 *    ValueError on the first step: SDPA builds no attention masks and the PTRR balancer needs a BlockMask
 *    (v0.2.2 distributed/context_parallel.py:196-200, called from train.py:469-477).
 * Only llama3 (or no model.name, torchtitan's default) with a flavor the table knows; other models and a fork's
 * flavors are not claimed.
 */
import { diag } from "../../../diagnostics/build";
import { findEntry, stringValue } from "../../../model/document";
import { LLAMA3_FLAVORS } from "../../../engine";
import type { TitanRule } from "../context";
import { decidedBy } from "../related";

const FLEX_CP_FROM = "2025-07-22";
const CP_REFACTOR = "2026-01-20";

export const cpAttentionUnsupported: TitanRule = {
  codes: ["cp-attention-unsupported"],
  restsOn: ["version"],
  run(ctx) {
    const d = ctx.dims.resolved;
    if (!d || d.cp <= 1 || ctx.decision.mechanism === "error") return [];
    if ((ctx.decideOptions.model ?? "llama3") !== "llama3") return [];
    const flavorEntry = findEntry(ctx.doc, "model", "flavor");
    const flavor = stringValue(flavorEntry);
    if (!flavor || !Object.prototype.hasOwnProperty.call(LLAMA3_FLAVORS, flavor)) return [];
    const attention = LLAMA3_FLAVORS[flavor]!.attention;
    const date = ctx.version.value.date;
    const id = ctx.version.value.id;
    const cpAt = ctx.dims.entries.cp?.value.range ?? flavorEntry!.value.range;
    const related = decidedBy(ctx, { version: true });
    if (date >= FLEX_CP_FROM && date < CP_REFACTOR && attention !== "sdpa") {
      return [
        diag("cp-attention-unsupported", "error", flavorEntry!.value.range, `${attention} attention (flavor "${flavor}") with CP ${d.cp}: torchtitan ${id} raises NotImplementedError at launch`, undefined, {
          detail: `Flavor "${flavor}" uses ${attention} attention, and torchtitan ${id} supports context parallelism with SDPA only: building the llama3 model args raises NotImplementedError "CP support for FlexAttention is still in progress." (context_parallel_degree = ${d.cp}). Use an SDPA flavor, or CP 1.`,
          related,
        }),
      ];
    }
    if (date >= CP_REFACTOR && attention === "varlen") {
      return [
        diag("cp-attention-unsupported", "error", flavorEntry!.value.range, `Varlen attention (flavor "${flavor}") with CP ${d.cp}: torchtitan ${id} raises NotImplementedError at launch`, undefined, {
          detail: `Flavor "${flavor}" uses variable-length attention, which torchtitan ${id} does not support with context parallelism (context_parallel_degree = ${d.cp}): building the llama3 model args raises NotImplementedError ("Varlen attention is not supported with CP."). Use an SDPA or flex flavor, or CP 1.`,
          related,
        }),
      ];
    }
    const lb = findEntry(ctx.doc, "parallelism", "context_parallel_load_balancer");
    if (date >= CP_REFACTOR && attention === "sdpa" && lb && stringValue(lb) === "ptrr") {
      return [
        diag("cp-attention-unsupported", "error", lb.value.range, `The "ptrr" CP load balancer needs flex attention; flavor "${flavor}" uses SDPA: ValueError at the first step`, { fixes: [{ title: 'Change to "headtail" (the SDPA load balancer)', edits: [{ range: lb.value.range, newText: '"headtail"' }] }] }, {
          detail: `context_parallel_load_balancer = "ptrr" with CP ${d.cp}: the PTRR load balancer needs the flex-attention BlockMask, and flavor "${flavor}" uses SDPA, which builds no attention masks, so torchtitan ${id} raises ValueError ("PTRRLoadBalancer requires attention_masks to be a BlockMask") when it shards the first batch. Use "headtail" with SDPA, or a flex flavor.`,
          related: [...related, { location: { uri: ctx.doc.uri, range: cpAt }, message: `context_parallel_degree = ${d.cp}` }],
        }),
      ];
    }
    return [];
  },
};

/**
 * seq-len-divisibility: seq_len is not divisible by what tensor and context parallelism need.
 *
 * global-batch-size: global_batch_size is not a multiple of local_batch_size × data-parallel degree.
 *
 * pp-microbatch: local_batch_size is not divisible by the pipeline microbatch size.
 *
 * Batch and sequence shapes against the parallel layout (spec torchtitan.md §3.3):
 *  - seq-len-divisibility: training.seq_len % (tp × 2 × cp) != 0 → assertion in every parallelize
 *    ("Sequence length … must be divisible by the product of TP degree … and 2 * CP degree …"). Only when
 *    TP or CP is on (tp × cp > 1).
 *  - global-batch-size: global_batch_size (≠ -1) not a multiple of local_batch_size × DP degree (R·S) →
 *    AssertionError "global batch size must be multiple of local batch size times data-parallel degree".
 *  - pp-microbatch: with PP, local_batch_size % pipeline_parallel_microbatch_size != 0 → ValueError.
 */
import { decidedBy } from "../related";
import { diag } from "../../../diagnostics/build";
import { intValue } from "../../../model/document";
import { findLeaf as findEntry } from "../schema/facts";
import type { TitanRule } from "../context";

/** 565cb810c (#3664): the trainer checks seq_len % (tp if SP) × (2·cp if cp > 1). */
const TRAINER_SEQ_CHECK_DATE = "2026-06-25";
/** 73aed7f6c (#4121): training.seq_len is folded into token counts. */
const SEQ_LEN_GONE_DATE = "2026-08-20";

export const seqLenDivisibility: TitanRule = {
  codes: ["seq-len-divisibility"],
  restsOn: ["worldSize"],
  run(ctx) {
    const l = ctx.dims.resolved ?? ctx.layout;
    const { tp, cp } = l;
    if (tp * cp <= 1) return [];
    const date = ctx.version.value.date;
    // 73aed7f6c (#4121, 2026-08-20) folds the batch dim: no seq_len any more (not modelled after it).
    if (date >= SEQ_LEN_GONE_DATE) return [];
    const e = findEntry(ctx.doc, "training", "seq_len");
    const seq = e ? intValue(e) : 2048;
    if (seq === undefined) return [];
    // From 565cb810c (#3664, 2026-06-25) the check is the trainer's: tp only under sequence parallelism, 2·cp only
    // when cp > 1 (torchtitan/trainer.py@ea1db708e:306-315); before it, every parallelize asserted tp × 2 × cp.
    const sp = findEntry(ctx.doc, "parallelism", "enable_sequence_parallel")?.value.value !== false;
    const div = date >= TRAINER_SEQ_CHECK_DATE ? (sp ? tp : 1) * (cp > 1 ? 2 * cp : 1) : tp * 2 * cp;
    if (div <= 1) return [];
    const trainerCheck = date >= TRAINER_SEQ_CHECK_DATE;
    if (seq % div === 0) return [];
    const range = e ? e.value.range : (ctx.dims.entries.tp ?? ctx.dims.entries.cp)?.value.range;
    if (!range) return [];
    const up = Math.ceil(seq / div) * div;
    return [
      diag(
        "seq-len-divisibility",
        "error",
        range,
        `seq_len ${seq}${e ? "" : " (default)"} is not divisible by ${trainerCheck ? "the SP/CP divisor" : "tp × 2 × cp"} = ${div}: torchtitan ${trainerCheck ? "raises ValueError" : "asserts"} (${up} works)`,
        e ? { fixes: [{ title: `Change to ${up}`, edits: [{ range: e.value.range, newText: String(up) }] }] } : undefined,
        { detail: trainerCheck ? `Sequence length ${seq}${e ? "" : " (default)"} must be divisible by ${div} (the TP degree ${tp} under sequence parallelism${cp > 1 ? `, times 2 × CP degree ${cp}` : ""}): torchtitan's trainer raises ValueError before training. ${up} would work.` : `Sequence length ${seq}${e ? "" : " (default)"} must be divisible by the product of TP degree (${tp}) and 2 * CP degree (${cp}) = ${div}: torchtitan asserts it when parallelizing the model. ${up} would work.` },
      ),
    ];
  },
};

export const globalBatchSize: TitanRule = {
  codes: ["global-batch-size"],
  restsOn: ["worldSize"],
  run(ctx) {
    const g = findEntry(ctx.doc, "training", "global_batch_size");
    const global = intValue(g);
    if (!g || global === undefined || global === -1) return [];
    const r = ctx.dims.resolved;
    if (!r) return [];
    const local = intValue(findEntry(ctx.doc, "training", "local_batch_size")) ?? 8;
    const dp = r.dp_replicate > 1 || r.dp_shard > 1 ? r.dp_replicate * r.dp_shard : 1;
    const unit = local * dp;
    if (unit > 0 && global > 0 && global % unit === 0) return [];
    return [
      diag(
        "global-batch-size",
        "error",
        g.value.range,
        `global_batch_size = ${global} is not a multiple of local batch × DP degree = ${unit}: torchtitan asserts`,
        { fixes: [{ title: "Change to -1 (local × DP)", edits: [{ range: g.value.range, newText: "-1" }] }, ...(global > unit ? [{ title: `Change to ${Math.round(global / unit) * unit}`, edits: [{ range: g.value.range, newText: String(Math.max(1, Math.round(global / unit)) * unit) }] }] : [])] },
        {
          detail: `global_batch_size = ${global} is not a multiple of local_batch_size × data-parallel degree = ${local} × ${dp} = ${unit}: torchtitan asserts "global batch size must be multiple of local batch size times data-parallel degree". Use -1 (= ${unit}) or a multiple of ${unit} for gradient accumulation.`,
          related: decidedBy(ctx, { shard: true, worldSize: true }),
        },
      ),
    ];
  },
};

export const ppMicrobatch: TitanRule = {
  codes: ["pp-microbatch"],
  restsOn: ["worldSize"],
  run(ctx) {
    const l = ctx.dims.resolved ?? ctx.layout;
    if (l.pp <= 1) return [];
    const mbE = findEntry(ctx.doc, "parallelism", "pipeline_parallel_microbatch_size");
    const mb = intValue(mbE) ?? 1;
    const localE = findEntry(ctx.doc, "training", "local_batch_size");
    const local = intValue(localE) ?? 8;
    if (mb <= 0 || local % mb === 0) return [];
    const range = (mbE ?? localE)?.value.range;
    if (!range) return [];
    return [
      diag("pp-microbatch", "error", range, `Batch size ${local} must be divisible by microbatch_size ${mb}: torchtitan raises ValueError at launch`, undefined, {
        detail: `Batch size ${local} must be divisible by microbatch_size ${mb}: with pipeline parallelism torchtitan raises ValueError at launch (local_batch_size % pipeline_parallel_microbatch_size != 0).`,
      }),
    ];
  },
};

/**
 * The diagnostics of a torchtitan config function. Same codes and pages as the TOML rules where the
 * meaning is the same (unknown-dtype, reduce-dtype-not-allowed, pure-bf16, parallel-dims-*); one code of
 * the Python era (fsdp-tp-grad-allreduce-dtype). Severity follows the provenance of the facts: an error
 * only when every fact it rests on is written in the file, a flag or a run script and nothing in the
 * function was left unfollowed; otherwise a warning that names the assumption.
 */
import { diag, fix } from "../../../diagnostics/build";
import { isTorchDtypeKey } from "../../../model/dtypeNames";
import type { ConfigDocument } from "../../../model/document";
import type { Diagnostic, Range, Severity } from "../../../model/types";
import { editDistance } from "../schema/index";
import { BF16_REDUCE_DATE, type PyResolution, type PyVersion } from "./context";
import type { FieldValue } from "./evaluate";
import type { Sourced } from "../../../analysis";
import { choicesAt } from "./schema";

export const PY_RULE_CODES = ["unknown-dtype", "reduce-dtype-not-allowed", "pure-bf16", "fsdp-tp-grad-allreduce-dtype", "parallel-dims-degree", "parallel-dims-type", "parallel-dims-limit", "parallel-dims-dp-shard", "parallel-dims-resolved", "parallel-dims-product"] as const;

interface RuleInput {
  doc: ConfigDocument;
  r: PyResolution;
  version: Sourced<PyVersion>;
}

/** Where a field's diagnostic goes in this document: its literal, the chain's call site, or the def name. */
function rangeOf(f: FieldValue & { override?: unknown }, i: RuleInput): { range: Range; inFile: boolean } {
  if (f.origin && f.origin.file === i.doc.uri) return { range: f.origin.range, inFile: true };
  if (f.origin) return { range: f.origin.anchor, inFile: false };
  return { range: i.r.evaluated.fn.nameRange, inFile: false };
}

function sourceOf(f: FieldValue & { override?: { file: string } }, i: RuleInput): string {
  if (f.override) return `set by a flag in ${f.override.file}`;
  if (f.origin && f.origin.file !== i.doc.uri) return `set in ${f.origin.via ? `${f.origin.via}() in ` : ""}${f.origin.file}`;
  return "set in this file";
}

/** Error only when the fact is explicit and nothing in the function was left unfollowed. */
function severityFor(i: RuleInput, explicit: boolean): { severity: Severity; assumption?: string } {
  const nf = i.r.evaluated.notFollowed;
  if (explicit && !nf.length) return { severity: "error" };
  const why = !explicit ? "the value is not written in this file" : `${nf.length} statement${nf.length === 1 ? " was" : "s were"} not followed (${nf[0]!.what} on line ${nf[0]!.range.start.line + 1}) and could change it`;
  return { severity: "warning", assumption: why };
}

export function pyDiagnostics(i: RuleInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  const fn = i.r.evaluated.fn.name;
  // unknown-dtype: TORCH_DTYPE_MAP[...] raises KeyError at model construction / in apply_fsdp
  // (trainer.py@b5bcd76c6:358; llama3/parallelize.py@b5bcd76c6:72).
  for (const key of ["training.dtype", "training.mixed_precision_param", "training.mixed_precision_reduce"]) {
    const f = i.r.fields.get(key);
    if (!f || f.state !== "set" || typeof f.value !== "string" || isTorchDtypeKey(f.value)) continue;
    const { range, inFile } = rangeOf(f, i);
    const choices = choicesAt(f.spec, i.version.value.date) ?? ["bfloat16", "float32"];
    const suggestion = [...choices].sort((a, b) => editDistance(f.value as string, a) - editDistance(f.value as string, b))[0]!;
    const sev = severityFor(i, inFile || !!(f as { override?: unknown }).override);
    const fixes = inFile ? { fixes: [fix(`Change to "${suggestion}"`, [{ range, newText: `"${suggestion}"` }], true)] } : undefined;
    out.push(
      diag("unknown-dtype", sev.severity, range, `${key} = "${clip(f.value)}" is not in torchtitan's TORCH_DTYPE_MAP: KeyError at launch${sev.assumption ? " (if nothing else changes it)" : ""}`, fixes, {
        detail: `${fn}(): ${key} = "${f.value}" (${sourceOf(f, i)}) is not a dtype torchtitan knows (TORCH_DTYPE_MAP has "float16", "float32", "bfloat16"), so the launch fails with KeyError.${sev.assumption ? ` Not certain: ${sev.assumption}.` : ""} Choices in torchtitan ${i.version.value.id}: ${choices.map((c) => `"${c}"`).join(", ")}.`,
      }),
    );
  }
  // reduce-dtype-not-allowed: Literal["float32"] until #4597 (configs.py@b5bcd76c6:102); a Python value is
  // not checked against the Literal, so the reduce still runs in it (spec torchtitan.md §2.1).
  const red = i.r.fields.get("training.mixed_precision_reduce");
  if (red?.state === "set" && red.value === "bfloat16" && i.version.value.date < BF16_REDUCE_DATE && i.version.source !== "default") {
    const { range, inFile } = rangeOf(red, i);
    out.push(
      diag("reduce-dtype-not-allowed", "warning", range, `mixed_precision_reduce = "bfloat16" is not a declared choice in torchtitan ${i.version.value.id} (bf16 reduce arrived with #4597, 2026-09-11)`, inFile ? { fixes: [fix('Reduce in fp32: "float32"', [{ range, newText: '"float32"' }])] } : undefined, {
        detail: `torchtitan ${i.version.value.id} (${i.version.detail}) declares mixed_precision_reduce: Literal["float32"]; a value from Python is not checked against it, so FSDP2 still reduce-scatters gradients in bf16. Choices from #4597 (merged 2026-09-11) on: "float32", "bfloat16".`,
      }),
    );
  }
  // pure-bf16: training.dtype = "bfloat16" sets the default dtype before the model is built (trainer.py@b5bcd76c6:358).
  const td = i.r.fields.get("training.dtype");
  const mp = i.r.fields.get("training.mixed_precision_param");
  if (td?.state === "set" && td.value === "bfloat16" && mp?.value !== "float32" && i.r.decision.mechanism !== "error") {
    const { range, inFile } = rangeOf(td, i);
    const states = i.r.optimizerState.dtype === "bfloat16" ? "bf16" : "bf16";
    out.push(
      diag("pure-bf16", "information", range, "Pure bf16: no fp32 master copy of weights, gradients or optimizer state", inFile ? { fixes: [fix('Keep fp32 master weights: training.dtype = "float32"', [{ range, newText: '"float32"' }])] } : undefined, {
        detail: `${fn}(): training.dtype = "bfloat16" (${sourceOf(td, i)}) builds the model in bf16: parameters, gradients and optimizer states (${states}) have no fp32 copy, so small updates can round away. With the default "float32", FSDP2's MixedPrecisionPolicy still computes in bf16 and keeps fp32 shards and optimizer states.`,
      }),
    );
  }
  // fsdp-tp-grad-allreduce-dtype: pytorch/pytorch#190626 (open): FSDP2's Partial -> Replicate all-reduce over
  // the TP mesh (TP-replicated params: norms under sequence parallelism, biases, routers) runs in the
  // gradient's own dtype, not MixedPrecisionPolicy.reduce_dtype. torchtitan applies fully_shard to every
  // layout from #2900, so TP > 1 with bf16 param_dtype and fp32 reduce_dtype reaches it.
  const tp = i.r.fields.get("parallelism.tensor_parallel_degree");
  const p = i.r.knobs.param.dtype;
  const rd = i.r.knobs.reduce.dtype;
  if (i.r.decision.mechanism === "fully_shard" && i.r.dims.resolved && i.r.dims.resolved.tp > 1 && p === "bfloat16" && rd === "float32" && tp) {
    const { range } = rangeOf(tp, i);
    out.push(
      diag("fsdp-tp-grad-allreduce-dtype", "information", range, "FSDP+TP: the TP-mesh gradient all-reduce of replicated parameters runs in bf16, not reduce_dtype float32 [inferred]", undefined, {
        detail: `${fn}(): with tensor_parallel_degree = ${i.r.dims.resolved.tp} under FSDP2, the gradients of TP-replicated parameters (norm weights under sequence parallelism, biases, MoE routers) are all-reduced over the TP mesh in their own dtype (bf16), not in MixedPrecisionPolicy.reduce_dtype (float32): pytorch/pytorch#190626, open, fix proposed in pytorch/pytorch#190627. The reduce-scatter over the data-parallel mesh does follow reduce_dtype. Inferred from the PyTorch issue; depends on the PyTorch version in use.`,
      }),
    );
  }
  // parallel-dims: ParallelDims validation (parallelDims.ts, torchtitan/distributed/parallel_dims.py).
  for (const e of i.r.dims.errors) {
    const field = e.fields[0];
    const key = field ? ({ dp_replicate: "data_parallel_replicate_degree", dp_shard: "data_parallel_shard_degree", cp: "context_parallel_degree", tp: "tensor_parallel_degree", pp: "pipeline_parallel_degree", ep: "expert_parallel_degree", etp: "expert_tensor_parallel_degree" } as const)[field] : undefined;
    const f = key ? i.r.fields.get(`parallelism.${key}`) : undefined;
    const { range, inFile } = f && f.state === "set" ? rangeOf(f, i) : { range: i.r.evaluated.fn.nameRange, inFile: false };
    const explicitWorld = i.r.worldSize.source !== "default";
    const explicitDims = e.fields.every((x) => {
      const k = ({ dp_replicate: "data_parallel_replicate_degree", dp_shard: "data_parallel_shard_degree", cp: "context_parallel_degree", tp: "tensor_parallel_degree", pp: "pipeline_parallel_degree", ep: "expert_parallel_degree", etp: "expert_tensor_parallel_degree" } as const)[x];
      return i.r.fields.get(`parallelism.${k}`)?.state !== "unknown";
    });
    const needsWorld = e.kind === "product" || e.kind === "resolved";
    const sev = severityFor(i, (inFile || explicitDims) && (!needsWorld || explicitWorld));
    const assumption = sev.assumption ?? (needsWorld && !explicitWorld ? `the world size ${i.r.worldSize.value} is ${i.r.worldSize.detail}` : undefined);
    const severity: Severity = needsWorld && !explicitWorld ? "warning" : sev.severity;
    out.push(diag(`parallel-dims-${e.kind}`, severity, range, `${fn}(): ${e.message}`.slice(0, 300), undefined, { detail: `${e.detail ?? e.message} (world size ${i.r.worldSize.value}: ${i.r.worldSize.detail}).${assumption && severity !== "error" ? ` Not certain: ${assumption}.` : ""}` }));
  }
  return out;
}

function clip(s: string): string {
  return s.length > 24 ? `${s.slice(0, 21)}...` : s;
}

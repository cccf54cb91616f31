/**
 * The diagnostics of a torchtitan config function. Same codes and pages as the TOML rules where the
 * meaning is the same (unknown-dtype, reduce-dtype-not-allowed, pure-bf16, parallel-dims-*); one code of
 * the Python era (fsdp-tp-grad-allreduce-dtype). Each rule says what the launch does; the severity gate
 * (core/provenance.ts) decides how sure that is: every finding rests on `evaluation` (the fields it reads, as
 * the function was read: `inferred` when one of them is not known or a statement was not followed) and on
 * the facts its rule names (world size, version). An error on an assumed fact becomes a warning led by it.
 */
import { diag, fix } from "../../../diagnostics/build";
import { isTorchDtypeKey } from "../../../model/dtypeNames";
import type { ConfigDocument } from "../../../model/document";
import type { Diagnostic, Range } from "../../../model/types";
import { gateDiagnostics, restingOn, type FactName, type Facts, type FactValue, type RestsOn } from "../../../provenance";
import { editDistance } from "../schema/index";
import { BF16_REDUCE_DATE, type PyResolution, type PyVersion } from "./context";
import type { FieldValue } from "./evaluate";
import type { Sourced } from "../../../analysis";
import { choicesAt } from "./schema";

export const PY_RULE_CODES = ["invalid-value", "unknown-dtype", "reduce-dtype-not-allowed", "pure-bf16", "fsdp-tp-grad-allreduce-dtype", "parallel-dims-degree", "parallel-dims-type", "parallel-dims-limit", "parallel-dims-dp-shard", "parallel-dims-resolved", "parallel-dims-product"] as const;

export interface RuleInput {
  doc: ConfigDocument;
  r: PyResolution;
  version: Sourced<PyVersion>;
}

/** One finding and the evaluated fields ("training.dtype") it rests on. */
export interface PyFinding {
  diagnostic: Diagnostic;
  fields: readonly string[];
}

/** A rule over one config function; `restsOn` always includes `evaluation` (the fields as read). */
export interface PyRule extends RestsOn {
  codes: readonly string[];
  run(i: RuleInput): PyFinding[];
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

/**
 * The `evaluation` fact of a finding: how its fields are known. `inferred` when one of them is not known (a base
 * not followed, an expression not evaluated) or a statement of the function was not followed (a loop could
 * change any field); `run-script` when a flag sets one; otherwise `file` (written in the function, a module it
 * follows, or torchtitan's default for the version).
 */
export function evaluationFact(i: RuleInput, keys: readonly string[]): FactValue {
  const fn = i.r.evaluated.fn.name;
  for (const k of keys) {
    const f = i.r.fields.get(k);
    if (f?.state === "unknown") return { value: fn, kind: "inferred", detail: `${k} not known` };
  }
  const nf = i.r.evaluated.notFollowed;
  if (nf.length) return { value: fn, kind: "inferred", detail: `${nf[0]!.what} on line ${nf[0]!.range.start.line + 1} not followed` };
  const flag = keys.map((k) => i.r.fields.get(k)).find((f) => f?.override);
  if (flag?.override) return { value: fn, kind: "run-script", detail: `set by a flag in ${flag.override.file}` };
  return { value: fn, kind: "file", detail: `every statement of ${fn}() followed` };
}

/** The facts of one config function: its world size, the version. `evaluation` is added per finding. */
export function pyFacts(i: RuleInput): Facts {
  return { worldSize: i.r.worldSize, version: i.version };
}

/** Runs the rules over one function, gating each finding on its own facts (core/provenance.ts). */
export function pyDiagnostics(i: RuleInput, rules: readonly PyRule[] = PY_RULES): Diagnostic[] {
  const base = pyFacts(i);
  const out: Diagnostic[] = [];
  for (const rule of rules) {
    for (const f of rule.run(i)) out.push(...gateDiagnostics([f.diagnostic], rule, { ...base, evaluation: evaluationFact(i, f.fields) }));
  }
  return out;
}

const DTYPE_KEYS = ["training.dtype", "training.mixed_precision_param", "training.mixed_precision_reduce"] as const;

// unknown-dtype: TORCH_DTYPE_MAP[...] raises KeyError at model construction / in apply_fsdp
// (trainer.py@b5bcd76c6:358; llama3/parallelize.py@b5bcd76c6:72). The same for every version.
const unknownDtype: PyRule = {
  codes: ["unknown-dtype"],
  restsOn: ["evaluation"],
  run(i) {
    const fn = i.r.evaluated.fn.name;
    const out: PyFinding[] = [];
    for (const key of DTYPE_KEYS) {
      const f = i.r.fields.get(key);
      if (!f || f.state !== "set" || typeof f.value !== "string" || isTorchDtypeKey(f.value)) continue;
      const { range, inFile } = rangeOf(f, i);
      const choices = choicesAt(f.spec, i.version.value.date) ?? ["bfloat16", "float32"];
      const suggestion = [...choices].sort((a, b) => editDistance(f.value as string, a) - editDistance(f.value as string, b))[0]!;
      const fixes = inFile ? { fixes: [fix(`Change to "${suggestion}"`, [{ range, newText: `"${suggestion}"` }], true)] } : undefined;
      const d = diag("unknown-dtype", "error", range, `${key} = "${clip(f.value)}" is not in torchtitan's TORCH_DTYPE_MAP: KeyError at launch`, fixes, {
        detail: `${fn}(): ${key} = "${f.value}" (${sourceOf(f, i)}) is not a dtype torchtitan knows (TORCH_DTYPE_MAP has "float16", "float32", "bfloat16"), so the launch fails with KeyError. Choices in torchtitan ${i.version.value.id}: ${choices.map((c) => `"${c}"`).join(", ")}.`,
      });
      out.push({ diagnostic: d, fields: [key] });
    }
    return out;
  },
};

// reduce-dtype-not-allowed: Literal["float32"] until #4597 (configs.py@b5bcd76c6:102); a Python value is not
// checked against the Literal, so the reduce still runs in it (spec torchtitan.md §2.1). A warning: the run
// does something else than the declared choices say, it does not fail.
const reduceNotAllowed: PyRule = {
  codes: ["reduce-dtype-not-allowed"],
  restsOn: ["version", "evaluation"],
  run(i) {
    const red = i.r.fields.get("training.mixed_precision_reduce");
    if (red?.state !== "set" || red.value !== "bfloat16" || i.version.value.date >= BF16_REDUCE_DATE) return [];
    const { range, inFile } = rangeOf(red, i);
    const d = diag("reduce-dtype-not-allowed", "warning", range, `mixed_precision_reduce = "bfloat16" is not a declared choice in torchtitan ${i.version.value.id} (bf16 reduce arrived with #4597, 2026-09-11)`, inFile ? { fixes: [fix('Reduce in fp32: "float32"', [{ range, newText: '"float32"' }])] } : undefined, {
      detail: `torchtitan ${i.version.value.id} (${i.version.detail}) declares mixed_precision_reduce: Literal["float32"]; a value from Python is not checked against it, so FSDP2 still reduce-scatters gradients in bf16. Choices from #4597 (merged 2026-09-11) on: "float32", "bfloat16".`,
    });
    return [{ diagnostic: d, fields: ["training.mixed_precision_reduce"] }];
  },
};

// pure-bf16: training.dtype = "bfloat16" sets the default dtype before the model is built (trainer.py@b5bcd76c6:358).
const pureBf16: PyRule = {
  codes: ["pure-bf16"],
  restsOn: ["evaluation"],
  run(i) {
    const td = i.r.fields.get("training.dtype");
    const mp = i.r.fields.get("training.mixed_precision_param");
    if (td?.state !== "set" || td.value !== "bfloat16" || mp?.value === "float32" || i.r.decision.mechanism === "error") return [];
    const { range, inFile } = rangeOf(td, i);
    const d = diag("pure-bf16", "information", range, "Pure bf16: no fp32 master copy of weights, gradients or optimizer state", inFile ? { fixes: [fix('Keep fp32 master weights: training.dtype = "float32"', [{ range, newText: '"float32"' }])] } : undefined, {
      detail: `${i.r.evaluated.fn.name}(): training.dtype = "bfloat16" (${sourceOf(td, i)}) builds the model in bf16: parameters, gradients and optimizer states (bf16) have no fp32 copy, so small updates can round away. With the default "float32", FSDP2's MixedPrecisionPolicy still computes in bf16 and keeps fp32 shards and optimizer states.`,
    });
    return [{ diagnostic: d, fields: ["training.dtype", "training.mixed_precision_param"] }];
  },
};

// fsdp-tp-grad-allreduce-dtype: pytorch/pytorch#190626 (open): FSDP2's Partial -> Replicate all-reduce over
// the TP mesh (TP-replicated params: norms under sequence parallelism, biases, routers) runs in the
// gradient's own dtype, not MixedPrecisionPolicy.reduce_dtype. torchtitan applies fully_shard to every
// layout from #2900, so TP > 1 with bf16 param_dtype and fp32 reduce_dtype reaches it.
const fsdpTpAllReduce: PyRule = {
  codes: ["fsdp-tp-grad-allreduce-dtype"],
  restsOn: ["worldSize", "version", "evaluation"],
  run(i) {
    const tp = i.r.fields.get("parallelism.tensor_parallel_degree");
    const p = i.r.knobs.param.dtype;
    const rd = i.r.knobs.reduce.dtype;
    if (i.r.decision.mechanism !== "fully_shard" || !i.r.dims.resolved || i.r.dims.resolved.tp <= 1 || p !== "bfloat16" || rd !== "float32" || !tp) return [];
    const { range } = rangeOf(tp, i);
    const d = diag("fsdp-tp-grad-allreduce-dtype", "information", range, "FSDP+TP: the TP-mesh gradient all-reduce of replicated parameters runs in bf16, not reduce_dtype float32 [inferred]", undefined, {
      detail: `${i.r.evaluated.fn.name}(): with tensor_parallel_degree = ${i.r.dims.resolved.tp} under FSDP2, the gradients of TP-replicated parameters (norm weights under sequence parallelism, biases, MoE routers) are all-reduced over the TP mesh in their own dtype (bf16), not in MixedPrecisionPolicy.reduce_dtype (float32): pytorch/pytorch#190626, open, fix proposed in pytorch/pytorch#190627. The reduce-scatter over the data-parallel mesh does follow reduce_dtype. Inferred from the PyTorch issue; depends on the PyTorch version in use.`,
    });
    return [{ diagnostic: d, fields: ["parallelism.tensor_parallel_degree", "training.mixed_precision_param", "training.mixed_precision_reduce"] }];
  },
};

const DIM_KEY = { dp_replicate: "data_parallel_replicate_degree", dp_shard: "data_parallel_shard_degree", cp: "context_parallel_degree", tp: "tensor_parallel_degree", pp: "pipeline_parallel_degree", ep: "expert_parallel_degree", etp: "expert_tensor_parallel_degree" } as const;

// parallel-dims: ParallelDims validation (parallelDims.ts, torchtitan/distributed/parallel_dims.py). A product or
// resolution error rests on the world size too; a degree's own value (type, range) on the fields alone.
const parallelDims: PyRule = {
  codes: ["parallel-dims-degree", "parallel-dims-type", "parallel-dims-limit", "parallel-dims-dp-shard", "parallel-dims-resolved", "parallel-dims-product"],
  restsOn: ["worldSize", "evaluation"],
  run(i) {
    const fn = i.r.evaluated.fn.name;
    return i.r.dims.errors.map((e) => {
      const key = e.fields[0] ? DIM_KEY[e.fields[0]] : undefined;
      const f = key ? i.r.fields.get(`parallelism.${key}`) : undefined;
      const { range } = f && f.state === "set" ? rangeOf(f, i) : { range: i.r.evaluated.fn.nameRange };
      const needsWorld = e.kind === "product" || e.kind === "resolved";
      const d = diag(`parallel-dims-${e.kind}`, "error", range, `${fn}(): ${e.message}`.slice(0, 300), undefined, { detail: `${e.detail ?? e.message} (world size ${i.r.worldSize.value}: ${i.r.worldSize.detail}).` });
      if (!needsWorld) restingOn(d, ["evaluation"] satisfies FactName[]);
      // A product or resolution error reads every degree (one not known may be the one that does not fit).
      const keys = needsWorld ? Object.values(DIM_KEY) : e.fields.map((x) => DIM_KEY[x]);
      return { diagnostic: d, fields: keys.map((k) => `parallelism.${k}`) };
    });
  },
};

/** The rules, in reporting order (test/provenance.test.ts checks that each declares its facts). */
// invalid-value (launch flags): tyro types `--section.option value` by the field's annotation; a value outside a
// Literal's choices exits with status 2 before training (checked with tyro 1.0.17: "invalid choice"). Only flags
// of a script that passes this function (python/context.ts launchOf) are read, so the launch is this config's.
const rejectedFlag: PyRule = {
  codes: ["invalid-value"],
  restsOn: ["version", "evaluation"],
  run(i) {
    return (i.r.rejectedFlags ?? []).slice(0, 8).map(({ override: o, choices }) => ({
      diagnostic: diag("invalid-value", "error", i.r.evaluated.fn.nameRange, `The launch fails: tyro rejects --${o.key} ${o.raw} from ${o.file} (torchtitan ${i.version.value.id} accepts ${choices.map((c) => `"${c}"`).join(", ")})`, undefined, {
        related: [{ location: o.location, message: `--${o.key} ${o.raw}` }],
        detail: `${o.file} runs this config function with --${o.key} ${o.raw}; tyro parses the flag against the field's Literal[${choices.map((c) => `"${c}"`).join(", ")}] at torchtitan ${i.version.value.id} (${i.version.detail}) and exits with status 2 ("invalid choice").`,
      }),
      fields: [o.key],
    }));
  },
};

export const PY_RULES: readonly PyRule[] = [rejectedFlag, unknownDtype, reduceNotAllowed, pureBf16, fsdpTpAllReduce, parallelDims];

function clip(s: string): string {
  return s.length > 24 ? `${s.slice(0, 21)}...` : s;
}

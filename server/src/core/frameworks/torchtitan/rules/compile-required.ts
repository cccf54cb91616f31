/**
 * async-tp-without-compile: Async tensor parallelism needs the model compiled.
 *
 * memory-budget-without-compile: Activation checkpointing in memory_budget mode needs the model compiled.
 *
 * Features that need torch.compile (spec torchtitan.md §2.4):
 *  - async-tp-without-compile: enable_async_tensor_parallel without compiling the model → RuntimeError
 *    "Async TP requires 'model' in --compile.components and --compile.enable" (only when TP > 1, where
 *    async TP is applied).
 *  - memory-budget-without-compile: activation_checkpoint.mode = "memory_budget" without compile →
 *    AssertionError "Memory budget mode requires model to be compiled".
 */
import { diag, fix } from "../../../diagnostics/build";
import { setKey } from "../../../edit/toml";
import type { ConfigDocument } from "../../../model/document";
import { findLeaf as findEntry } from "../schema/facts";
import type { Fix } from "../../../model/types";
import type { TitanRule } from "../context";
import { compileState } from "../schema/facts";

function enableCompileFix(doc: ConfigDocument, date: string): Fix {
  if (date < "2025-08-20") return fix("Set training.compile = true", setKey(doc, ["training"], "compile", "true"), true);
  const comps = findEntry(doc, "compile", "components");
  const edits = setKey(doc, ["compile"], "enable", "true");
  if (comps && Array.isArray(comps.value.value) && !(comps.value.value as unknown[]).includes("model")) {
    const items = ["model", ...(comps.value.value as unknown[]).map(String)];
    edits.push({ range: comps.value.range, newText: `[${items.map((s) => JSON.stringify(s)).join(", ")}]` });
  }
  return fix('Turn on compile for "model"', edits, true);
}

export const asyncTpWithoutCompile: TitanRule = {
  codes: ["async-tp-without-compile"],
  restsOn: ["version"],
  run(ctx) {
    const e = findEntry(ctx.doc, "parallelism", "enable_async_tensor_parallel");
    if (e?.value.value !== true || ctx.dims.configured.tp <= 1) return [];
    const date = ctx.version.value.date;
    if (compileState(ctx.doc, date).model) return [];
    return [
      diag(
        "async-tp-without-compile",
        "error",
        e.value.range,
        "Async tensor parallelism needs the model compiled: torchtitan raises RuntimeError at launch",
        { fixes: [enableCompileFix(ctx.doc, date), fix("Set enable_async_tensor_parallel = false", [{ range: e.value.range, newText: "false" }])] },
        { detail: `Async tensor parallelism needs the model compiled: torchtitan raises RuntimeError "Async TP requires 'model' in --compile.components and --compile.enable" at launch.` },
      ),
    ];
  },
};

export const memoryBudgetWithoutCompile: TitanRule = {
  codes: ["memory-budget-without-compile"],
  restsOn: ["version"],
  run(ctx) {
    const e = findEntry(ctx.doc, "activation_checkpoint", "mode");
    if (e?.value.value !== "memory_budget") return [];
    const date = ctx.version.value.date;
    if (date < "2025-10-09") return []; // not a mode yet: invalid-value reports it
    if (compileState(ctx.doc, date).model) return [];
    return [diag("memory-budget-without-compile", "error", e.value.range, `activation_checkpoint.mode = "memory_budget" needs the model compiled: torchtitan asserts it`, { fixes: [enableCompileFix(ctx.doc, date)] }, { detail: `activation_checkpoint.mode = "memory_budget" needs the model compiled: torchtitan asserts "Memory budget mode requires model to be compiled".` })];
  },
};

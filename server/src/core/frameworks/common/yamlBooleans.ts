/** `yaml-1.1-boolean`: bare yes/no/on/off that PyYAML reads as booleans, shared by every YAML analyser. */
import { fix } from "../../diagnostics/build";
import { keyOf, type ConfigDocument } from "../../model/document";
import { isYaml11Boolean } from "../../parse/yaml";
import type { Diags } from "./diagnosticBuilder";
import { replaceValue } from "./edits";

/**
 * `yaml-1.1-boolean` (Information): a bare yes/no/on/off that PyYAML reads as a boolean. Skips the paths a
 * framework reports itself with a sharper code (e.g. accelerate's accelerate/bare-no-boolean), and keys that expect a boolean
 * (`expectsBool`), where the YAML 1.1 reading is what the user meant.
 */
export function yaml11Booleans(doc: ConfigDocument, d: Diags, skip: (path: string[]) => boolean, expectsBool: (path: string[]) => boolean): void {
  if (doc.format !== "yaml") return;
  for (const e of doc.entries) {
    if (!isYaml11Boolean(e.value) || skip(e.path) || expectsBool(e.path)) continue;
    const raw = e.value.raw!;
    const b = e.value.value as boolean;
    d.add(
      "yaml-1.1-boolean",
      "information",
      e.value.range,
      {
        message: `\`${keyOf(e.path)}: ${raw}\` is read as the boolean ${b ? "True" : "False"}, not the string "${raw}" (PyYAML follows YAML 1.1)`,
        detail: `\`${keyOf(e.path)}: ${raw}\` is read as the boolean ${b ? "True" : "False"}, not the string "${raw}": the framework loads YAML with PyYAML, which follows YAML 1.1 where bare yes/no/on/off are booleans. Quote it ('${raw}') if you meant the string, or write ${b} to make the boolean explicit.`,
      },
      [fix(`Quote it: '${raw}'`, [replaceValue(e.value, `'${raw}'`)]), fix(`Write ${b}`, [replaceValue(e.value, String(b))])],
    );
  }
}

/** Heuristic keys that hold booleans in every framework here (so `yes`/`no` there is harmless). */
const BOOL_FIRST = new Set(["enable", "use", "is", "has", "do", "with", "load", "save", "log", "apply", "packed", "shuffle", "compile", "resume", "strict", "flash", "sample", "gradient", "same", "fused", "cpu", "cuda", "offload", "sync", "zero3", "tpu", "fsdp", "deterministic", "benchmark", "overwrite", "push", "train", "eval", "pin", "drop", "auto", "allow", "skip", "bf16", "fp16", "tf32", "fp8"]);
const BOOL_WHOLE = new Set(["bf16", "fp16", "tf32", "fp8", "bfloat16", "float16", "debug", "enabled", "fused", "shuffle", "packed", "compile", "strict", "deterministic", "benchmark", "verbose", "sync_batchnorm", "fast_dev_run", "overlap_comm", "contiguous_gradients", "reduce_scatter"]);
const BOOL_LAST = new Set(["enabled", "flag", "offload", "only", "checkpointing", "loading", "memory", "stats", "params", "prefetch", "comm", "states", "init"]);

export function looksBoolKey(path: string[]): boolean {
  const k = (path[path.length - 1] ?? "").toLowerCase();
  if (BOOL_WHOLE.has(k)) return true;
  const parts = k.split("_");
  return BOOL_FIRST.has(parts[0]!) || (parts.length > 1 && BOOL_LAST.has(parts[parts.length - 1]!));
}

/**
 * The schema as it applies to one document: target date, the extension modules the document names, and
 * its leaf entries (inline tables flattened). Shared by the schema rules, completion and hover.
 */
import type { ConfigDocument, ConfigEntry } from "../../../model/document";
import { findEntry, stringValue } from "../../../model/document";
import type { Diagnostic, Fix } from "../../../model/types";
import { dateOf, extensionByModule, rejectsUnknownKeys, type ExtensionModule, type When } from "./index";
import { table } from "../../../model/table";

export interface SchemaView {
  date: string;
  strict: boolean;
  /** Extension modules named by the document and known to us. */
  extensions: ExtensionModule[];
  /** A module the document names that we do not know: its extra sections are not flagged. */
  unknownModule?: { name: string; entry: ConfigEntry };
  /** The entry naming the module, when any. */
  moduleEntry?: ConfigEntry;
  /** Config sources read from the workspace (a fork's job_config.py, a custom module's file); also in `extensions`. */
  workspace: ExtensionModule[];
}

/** Which key names the extension module at that date (custom_args_module before 2025-10-14). */
export function moduleKeyAt(date: string): [string, string] {
  return date >= "2025-10-14" ? ["job", "custom_config_module"] : ["experimental", "custom_args_module"];
}

export function schemaView(doc: ConfigDocument, when: When, workspace: readonly ExtensionModule[] = []): SchemaView {
  const date = dateOf(when);
  const view: SchemaView = { date, strict: rejectsUnknownKeys(date), extensions: [...workspace], workspace: [...workspace] };
  const [sec, key] = moduleKeyAt(date);
  const entry = findEntry(doc, sec, key);
  const name = stringValue(entry)?.trim();
  if (entry && name) {
    view.moduleEntry = entry;
    const m = extensionByModule(name);
    if (m) view.extensions.push(m);
    else if (!workspace.some((w) => w.modules.includes(name))) view.unknownModule = { name, entry };
  }
  return view;
}

/** Leaf entries: scalars and arrays, with inline tables flattened into their entries. */
export function leafEntries(doc: ConfigDocument): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const visit = (e: ConfigEntry) => {
    if (e.value.kind === "table" && e.value.entries) {
      if (e.value.entries.length === 0) out.push(e);
      for (const sub of e.value.entries) visit(sub);
    } else out.push(e);
  };
  for (const e of doc.entries) visit(e);
  return out;
}

/** Table paths whose dataclass name is not the last part in CamelCase. */
const DATACLASS_NAMES: Readonly<Record<string, string>> = table({
  lr_scheduler: "LRScheduler",
  "quantize.linear.float8": "Float8Linear",
  "quantize.linear.mx": "MXLinear",
  "quantize.grouped_mm.float8": "Float8GroupedMM",
  "quantize.grouped_mm.mx": "MXGroupedMM",
  "quantize.linear": "QuantizedLinear",
  "quantize.grouped_mm": "QuantizedGroupedMM",
  "training.dataloader": "DataLoader",
  "validation.dataloader": "DataLoader",
});

/** torchtitan's dataclass name for a table path, for its "Invalid field names in {cls} data" message. */
export function dataclassName(table: readonly string[]): string {
  if (table.length === 0) return "JobConfig";
  const k = table.join(".");
  return DATACLASS_NAMES[k] ?? table[table.length - 1]!.split("_").map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join("");
}

/** The fact marking a diagnostic whose single fix is safe to apply without asking (`check --fix`). */
export const SAFE_FIX_FACT = "safeFix";

/** Marks a diagnostic's only fix as safe for `check --fix`. No-op unless it has exactly one fix. */
export function markSafe(d: Diagnostic): Diagnostic {
  if (d.data?.fixes?.length === 1) d.data.facts = { ...(d.data.facts ?? {}), [SAFE_FIX_FACT]: true };
  return d;
}

/** The safe fix of a diagnostic, when it has one. */
export function safeFixOf(d: Diagnostic): Fix | undefined {
  return d.data?.facts?.[SAFE_FIX_FACT] === true && d.data.fixes?.length === 1 ? d.data.fixes[0] : undefined;
}

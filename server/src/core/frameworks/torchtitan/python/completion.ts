/**
 * Completion of field names inside the config constructors of a torchtitan Python registry
 * (`TrainingConfig(|)`, `ParallelismConfig(dtype=…, |)`): the fields of the dataclass table (schema.ts)
 * not yet written in that call. A bounded backward scan of the text finds the open call; nothing is parsed.
 */
import type { CompletionItem } from "../../../features/completion";
import type { ConfigDocument } from "../../../model/document";
import type { Position } from "../../../model/types";
import { PY_FIELDS, SECTION_CLASSES } from "./schema";

/** How far back the open constructor call is looked for. */
const SCAN_CHARS = 8_000;

export function pythonCompletions(doc: ConfigDocument, position: Position): CompletionItem[] {
  const text = doc.text;
  const at = doc.lines.offsetAt(position);
  let depth = 0;
  let open = -1;
  for (let i = at - 1; i >= Math.max(0, at - SCAN_CHARS); i--) {
    const c = text[i];
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "(" || c === "[" || c === "{") {
      if (depth === 0) {
        open = c === "(" ? i : -1;
        break;
      }
      depth--;
    }
  }
  if (open < 0) return [];
  const callee = /([A-Za-z_][A-Za-z0-9_.]*)\s*$/.exec(text.slice(Math.max(0, open - 200), open))?.[1];
  const cls = callee && Object.keys(SECTION_CLASSES).find((k) => callee === k || callee.endsWith(`.${k}`));
  if (!cls) return [];
  const section = SECTION_CLASSES[cls]!;
  const args = text.slice(open, at);
  // The word being typed (if any) is not yet a written field.
  const typing = /([A-Za-z_][A-Za-z0-9_]*)$/.exec(args)?.[1];
  const written = new Set([...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/g)].map((m) => m[1]!));
  return PY_FIELDS.filter((f) => f.section === section && (!written.has(f.key) || f.key === typing)).map((f) => ({
    label: f.key,
    kind: "key" as const,
    detail: `${f.type} = ${JSON.stringify(f.default)}`,
    documentation: `${f.doc}\n\nDefault \`${JSON.stringify(f.default)}\` (${f.source})${f.choices ? `; choices: ${f.choices.map((c) => `\`${c}\``).join(", ")}` : ""}.`,
    insertText: `${f.key}=`,
  }));
}

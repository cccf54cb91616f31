/** The diagnostic builder of the YAML/JSON analysers: codes namespaced by framework, parser notes, launch errors. */
import { diag, fitMessage } from "../../diagnostics/build";
import type { ConfigDocument } from "../../model/document";
import { yamlParseNotes } from "../../parse/yaml";
import type { Diagnostic, Fix, Range, Severity } from "../../model/types";

/** A short message with its long explanation. */
export interface Explained {
  message: string;
  detail: string;
}

/** A diagnostic builder bound to a framework namespace: `d("pure-bf16", ...)` yields code `torchtune/pure-bf16`. */
export function diagnostics(ns: string) {
  const out: Diagnostic[] = [];
  return {
    out,
    /**
     * `message` is one short sentence (at most ~120 characters); the long explanation goes to `detail` (hover,
     * report, JSON), given either as the last argument or with the message as `{ message, detail }`.
     */
    add(code: string, severity: Severity, range: Range | undefined, text: string | Explained, fixes?: Fix[], facts?: Record<string, string | number | boolean>, detail?: string): void {
      if (!range) return;
      detail ??= typeof text === "string" ? undefined : text.detail;
      // With the long text kept in the detail, a message that still runs long (a long path) may be cut.
      const message = detail ? fitMessage(typeof text === "string" ? text : text.message) : typeof text === "string" ? text : text.message;
      const data: { fixes?: Fix[]; facts?: Record<string, string | number | boolean> } = {};
      if (fixes?.length) data.fixes = fixes;
      if (facts) data.facts = facts;
      out.push(diag(code.includes("/") || code.startsWith("yaml-") || code.startsWith("json-") ? code : `${ns}/${code}`, severity, range, message, data, detail ? { detail } : undefined));
    },
  };
}
export type Diags = ReturnType<typeof diagnostics>;

/** The errors among the diagnostics: any of them stops the launch before training. */
export function launchErrors(d: { readonly out: readonly Diagnostic[] }): Diagnostic[] {
  return d.out.filter((x) => x.severity === "error");
}

/** Parser notes (alias limit) as diagnostics. */
export function parseNoteDiagnostics(doc: ConfigDocument, d: Diags): void {
  for (const n of yamlParseNotes(doc)) d.add(n.code, n.severity, n.range, { message: n.message, detail: n.detail });
}

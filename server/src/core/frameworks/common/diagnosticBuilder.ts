/** The diagnostic builder of the YAML/JSON analysers: codes namespaced by framework, parser notes, launch errors. */
import { diag } from "../../diagnostics";
import type { ConfigDocument } from "../../model";
import { yamlParseNotes } from "../../parse/yaml";
import type { Diagnostic, Fix, Range, Severity } from "../../types";

/** A diagnostic builder bound to a framework namespace: `d("TT3", ...)` yields code `torchtune/TT3`. */
export function diagnostics(ns: string) {
  const out: Diagnostic[] = [];
  return {
    out,
    add(code: string, severity: Severity, range: Range | undefined, message: string, fixes?: Fix[], facts?: Record<string, string | number | boolean>): void {
      if (!range) return;
      const data: { fixes?: Fix[]; facts?: Record<string, string | number | boolean> } = {};
      if (fixes?.length) data.fixes = fixes;
      if (facts) data.facts = facts;
      out.push(diag(code.includes("/") || code.startsWith("yaml-") || code.startsWith("json-") ? code : `${ns}/${code}`, severity, range, message, data));
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
  for (const n of yamlParseNotes(doc)) d.add(n.code, n.severity, n.range, n.message);
}

/**
 * The rule shape every framework shares (torchtitan's `TitanRule` is the same): one concern, named by its
 * diagnostic code(s), a pure function of the framework's context computed once per document version.
 */
import type { ConfigDocument } from "../../model/document";
import type { Diagnostic } from "../../model/types";
import { gateDiagnostics, type Facts, type RestsOn } from "../../provenance";
import { diagnostics, parseNoteDiagnostics } from "./diagnosticBuilder";
import { yaml11Booleans } from "./yamlBooleans";

export interface FrameworkRule<C> extends RestsOn {
  /** The diagnostic codes this rule emits (one concern; several codes only for a tight family). */
  codes: readonly string[];
  run(ctx: C): Diagnostic[];
}

/**
 * Runs the rules in order (the order is the order diagnostics are emitted in before sorting); the severity of
 * each rule's errors then follows from the facts it rests on (core/provenance.ts). `facts` may depend on the rule
 * (transformers: the version a rule rests on is that of the package whose behaviour it reads).
 */
export function runRules<C, R extends FrameworkRule<C>>(ctx: C, rules: readonly R[], facts: Facts | ((rule: R) => Facts)): Diagnostic[] {
  return rules.flatMap((r) => gateDiagnostics(r.run(ctx), r, typeof facts === "function" ? facts(r) : facts));
}

/** Parser notes (alias limit) of a YAML document, as diagnostics: every YAML framework's first rule. */
export function parseNotesRule(ns: string): FrameworkRule<{ doc: ConfigDocument }> {
  return {
    codes: ["yaml-alias-limit"],
    restsOn: [],
    run({ doc }) {
      const d = diagnostics(ns);
      parseNoteDiagnostics(doc, d);
      return d.out;
    },
  };
}

/** `yaml-1.1-boolean` (see yamlBooleans.ts) as a rule, with the framework's own skip and boolean-key tests. */
export function yamlBooleansRule(ns: string, skip: (path: string[]) => boolean, expectsBool: (path: string[]) => boolean): FrameworkRule<{ doc: ConfigDocument }> {
  return {
    codes: ["yaml-1.1-boolean"],
    restsOn: [],
    run({ doc }) {
      const d = diagnostics(ns);
      yaml11Booleans(doc, d, skip, expectsBool);
      return d.out;
    },
  };
}

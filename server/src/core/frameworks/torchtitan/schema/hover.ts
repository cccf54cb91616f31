/**
 * Key hovers from the schema: type, default, allowed values, meaning, since which release, what the key
 * does to precision, and for old names where the key went. Merged by the server with the precision
 * hovers (those come first on the precision keys).
 */
import type { HoverTarget } from "../../../analysis";
import type { ConfigDocument } from "../../../model/document";
import { CONVERTER_DOCS, type ExtensionModule, type KeySpec } from "./data";
import { choicesAt, converterNamesAt, dateOf, effectiveDefault, keyInfo, renameFor, sinceLabel, type When } from "./index";
import { leafEntries, schemaView } from "./view";
import { headerPrefixOf } from "../../../edit/toml";
import { extensionOf, extensionsDefining, sectionsOf } from "./index";
import { table } from "../../../model/table";

export function typeLabel(spec: KeySpec): string {
  return spec.nullable ? `${spec.type} | None` : spec.type;
}

export function defaultText(spec: KeySpec, when: When): string {
  const d = effectiveDefault(spec, when);
  if (d === undefined) return "None";
  return JSON.stringify(d);
}

function versionLabel(when: When): string {
  return when.startsWith("v") ? when : `main@${when}`;
}

export function specMarkdown(spec: KeySpec, when: When, ext?: ExtensionModule): string {
  const lines: string[] = [];
  // A workspace source's default is Python text we do not evaluate: not shown.
  lines.push(ext?.sourcePath ? `**${spec.path}**${spec.type === "any" ? "" : ` · \`${spec.type}\``}` : `**${spec.path}** · \`${typeLabel(spec)}\` · default \`${defaultText(spec, when)}\``);
  const choices = choicesAt(spec, when);
  if (spec.path === "model.converters") {
    const names = converterNamesAt(when);
    // One line each: a description ends with its own full stop, so joining them with "; " read "needs SM 8.9+.;" (issue #34).
    if (names.length) lines.push("", `Converters in ${versionLabel(when)}:`, "", ...names.map((n) => `- \`"${n}"\`${CONVERTER_DOCS[n] ? ` — ${CONVERTER_DOCS[n]}` : ""}`));
  } else if (choices.length) lines.push("", `${spec.openChoices ? "Common values" : "Allowed"}: ${choices.map((c) => `\`"${c}"\``).join(", ")}`);
  lines.push("", spec.doc);
  if (spec.precision) lines.push("", `**Precision:** ${spec.precision}`);
  if (spec.deprecated && dateOf(when) >= spec.deprecated.since) lines.push("", `**Deprecated** since ${spec.deprecated.since}: ${spec.deprecated.advice}.`);
  if (ext?.sourcePath) lines.push("", `Known from \`${ext.sourcePath}\` (the ${ext.label} in this workspace), not from upstream torchtitan's schema.`);
  else if (ext) lines.push("", `From the ${ext.label} extension module \`${ext.modules[0]}\`.`);
  if (spec.renamedTo) lines.push("", `Renamed to \`${spec.renamedTo.path}\` on ${spec.renamedTo.date}.`);
  if (!ext?.sourcePath) lines.push("", `Since ${sinceLabel(spec)}${spec.until ? `; ${spec.renamedTo ? "renamed" : "removed"} ${spec.until}` : ""}. Schema of torchtitan ${versionLabel(when)}.`);
  return lines.join("\n");
}

/**
 * Markdown for a key at a release: the schema entry, or for an old name where it went. Undefined for a
 * key the schema does not know at all.
 */
export function keyHoverMarkdown(when: When, path: string | readonly string[], extensions: readonly ExtensionModule[] = []): string | undefined {
  const dotted = typeof path === "string" ? path : path.join(".");
  const spec = keyInfo(when, dotted, extensions);
  if (spec) return specMarkdown(spec, when, extensionOf(when, dotted, extensions));
  const r = renameFor(dotted, when);
  if (r) {
    const last = r.steps[r.steps.length - 1]!;
    if (r.removed) return `**${dotted}** was removed on ${last.date}${last.commit ? ` (${last.commit})` : ""}.${last.advice ? ` Instead: ${last.advice}.` : ""}`;
    const target = keyInfo(when, r.to!, extensions);
    return [`**${dotted}** is an old name: renamed to **${r.to}** (${r.steps.map((s) => s.date).join(", ")}).${r.invert ? " The meaning is inverted." : ""}${r.changedMeaning ? ` ${r.changedMeaning}.` : ""}`, ...(target ? ["", "---", "", specMarkdown(target, when)] : [])].join("\n");
  }
  return undefined;
}

const TABLE_HOVER: Readonly<Record<string, string>> = table({
  training: "Training loop, batch shape and the precision knobs: `dtype` (storage), `mixed_precision_param` (compute), `mixed_precision_reduce` (gradient reduction).",
  parallelism: "Parallel degrees. They decide how mixed precision is applied: FSDP (dp_shard > 1 or cp > 1) applies it through MixedPrecisionPolicy; DDP or one device through torch.autocast; TP or PP alone gets none (v0.1.0–v0.2.2).",
  quantize: "Float8 / MX converter settings; the converters themselves are turned on in `[model] converters`.",
});

/** Hover targets for every key (and table header) the schema knows, or that has a newer name. */
export function keyHoverTargets(doc: ConfigDocument, when: When, workspace: readonly ExtensionModule[] = []): HoverTarget[] {
  const view = schemaView(doc, when, workspace);
  const out: HoverTarget[] = [];
  for (const e of leafEntries(doc)) {
    const md = keyHoverMarkdown(when, e.path, view.extensions);
    if (md) out.push({ range: e.keyRange, markdown: md });
  }
  const known = new Set(sectionsOf(when, view.extensions));
  // Keys written under each header, computed in one pass.
  const keysByHeader = new Map<string, string[]>();
  for (const e of leafEntries(doc)) {
    const h = headerPrefixOf(doc, e).join(".");
    const list = keysByHeader.get(h) ?? [];
    const k = e.path.join(".");
    if (!list.includes(k)) list.push(k);
    keysByHeader.set(h, list);
  }
  for (const s of doc.sections) {
    const name = s.path.join(".");
    if (!known.has(name)) {
      const ext = extensionsDefining(name)[0];
      if (ext) out.push({ range: s.headerRange, markdown: `**[${name}]** comes from the ${ext.label} extension module \`${ext.modules[0]}\` (name it in \`job.custom_config_module\`).` });
      continue;
    }
    const keys = keysByHeader.get(name) ?? [];
    if (!sectionsOf(when).includes(name)) {
      const src = view.workspace.find((w) => sectionsOf(when, [w]).includes(name));
      if (src) {
        out.push({ range: s.headerRange, markdown: `**[${name}]** — known from \`${src.sourcePath}\` (the ${src.label} in this workspace), not from upstream torchtitan's schema.\n\n${keys.length} key${keys.length === 1 ? "" : "s"} set here.` });
        continue;
      }
    }
    const doc0 = TABLE_HOVER[name] ?? "";
    out.push({ range: s.headerRange, markdown: `**[${name}]**${doc0 ? ` — ${doc0}` : ""}\n\n${keys.length} key${keys.length === 1 ? "" : "s"} set here. Schema of torchtitan ${versionLabel(when)}.` });
  }
  return out;
}

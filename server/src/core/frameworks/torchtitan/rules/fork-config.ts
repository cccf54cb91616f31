/**
 * fork-config: A torchtitan fork's config: names upstream never had are listed once, not checked.
 *
 * fork-config (issue #17 §3): one information note for a config that uses names upstream torchtitan never
 * had at any date (fork.ts: keys, tables, optimizer names, model converters) when no fork config source is
 * found. It lists what cannot be checked and how to point Precision Lens at the fork's config source,
 * instead of one finding per name. Upstream rejects unknown fields from 2025-08-28
 * (torchtitan/config/manager.py, "Invalid field names in … data") and raises NotImplementedError for an
 * optimizer other than Adam/AdamW (torchtitan/components/optimizer.py build_optimizers); a fork that
 * defines or registers them runs fine, so neither is asserted here.
 */
import { diag, firstFitting, fitMessage } from "../../../diagnostics/build";
import type { Diagnostic } from "../../../model/types";
import type { TitanRule } from "../context";
import { TOML_NAMESPACE_UNTIL, unfoundModule, type ForkEvidence, type ForkItem } from "../fork";
import { schemaKeysFolded } from "./unknown-key";
import { valuesFolded } from "./wrong-type";

/** The fork evidence with the folded names added (in line order, each name once). */
function withFolded(fork: ForkEvidence | undefined, folded: readonly ForkItem[], module: string | undefined): ForkEvidence | undefined {
  if (!folded.length) return fork;
  const labels = new Set(fork?.items.map((i) => i.label));
  const items = [...(fork?.items ?? []), ...folded.filter((i) => !labels.has(i.label) && labels.add(i.label))];
  items.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  const out: ForkEvidence = { ...(fork ?? { keys: new Set<string>(), tables: new Set<string>(), converters: new Set<string>() }), items };
  if (module !== undefined) out.unknownModule = module;
  return out;
}

const HOW = "point Precision Lens at the fork's config source with the precisionLens.torchtitanConfigSource setting or --torchtitan-config-source PATH (its torchtitan/config/job_config.py, config_manager.py or custom config module file)";

/** Names listed in the note's detail; a generated file with thousands stops there. */
const MAX_LISTED = 50;

export const forkConfig: TitanRule = {
  codes: ["fork-config"],
  restsOn: ["forkSchema"],
  run(ctx) {
    const missing = ctx.configSourceMissing;
    // The names other rules left to this note (fork.ts foldIntoFork): quiet unknown keys and tables, keys a
    // custom module that was not found may add, values outside upstream's choices with no close name.
    const folded = [...schemaKeysFolded(ctx), ...valuesFolded(ctx)];
    const fork = withFolded(ctx.fork, folded, unfoundModule(ctx));
    if (!fork && !missing) return [];
    const id = ctx.version.value.id;
    const unread = missing ? ` The configured config source "${missing}" could not be read.` : "";
    if (!fork) {
      return [diag("fork-config", "information", { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, fitMessage(`The torchtitan config source "${missing}" could not be read: checked against upstream ${id}`), undefined, { detail: `The torchtitan config source "${missing}" (precisionLens.torchtitanConfigSource or --torchtitan-config-source) could not be read, or holds no config dataclass: this file is checked against upstream torchtitan ${id}.` })];
    }
    const n = fork.items.length;
    const names = `${n} name${n === 1 ? "" : "s"}`;
    const labels = fork.items.map((i) => i.label);
    // Up to three names, as many as keep the message short (never a name cut in the middle, issue #34).
    const shownOf = (k: number): string => labels.slice(0, k).join(", ") + (n > k ? `, +${n - k} more` : "");
    const listed = labels.slice(0, MAX_LISTED).join(", ") + (n > MAX_LISTED ? ` and ${n - MAX_LISTED} more` : "");
    const module = fork.unknownModule ? ` The custom config module ${fork.unknownModule} it names was not found in the workspace; it may define them.` : "";
    // Folded names may exist upstream at another date (a table of a later release): "unknown to upstream" then.
    const never = folded.length ? `unknown to upstream ${id}` : "upstream never had";
    // A found argparse-era source (fork.ts TOML_NAMESPACE_UNTIL): the names reach the fork's code undeclared.
    const src = fork.passedThrough?.join(", ");
    const note = src
      ? {
          msg: (shown: string) => `torchtitan fork config: ${names} outside its config source, not checked: ${shown}`,
          detail:
            `This config uses ${names} that neither upstream torchtitan ${id} nor the fork's config source (${src}) declares: ${listed}. ` +
            `torchtitan before ${TOML_NAMESPACE_UNTIL} (the argparse JobConfig) sets every key of the TOML as an attribute of its section, so the fork's code may read them; Precision Lens cannot check them. The rest of the file is checked against upstream torchtitan ${id} and that source.`,
          each: "not declared by the config source",
        }
      : {
          msg: (shown: string) => `torchtitan fork config: ${names} ${never}, not checked: ${shown}`,
          detail:
            `This config uses ${names} ${folded.length ? `that upstream torchtitan ${id} does not have (nor, for most, any release or date)` : "that upstream torchtitan never had at any release or date"}: ${listed}. ` +
            `They are a fork's (its own keys, tables, optimizers or converters): Precision Lens cannot check them, nor what the fork changes in upstream's behaviour; ` +
            `the rest of the file is checked against upstream torchtitan ${id}.${module}${unread} To check them, ${HOW}. A fork checked out around the config (up to the repository root) is found by itself.`,
          each: "not in upstream torchtitan",
        };
    const d: Diagnostic = diag("fork-config", "information", fork.items[0]!.range, firstFitting([3, 2, 1].filter((k) => k <= Math.max(1, n)).map((k) => note.msg(shownOf(k)))), undefined, {
      detail: note.detail,
      related: fork.items.slice(1, 20).map((i) => ({ location: { uri: ctx.doc.uri, range: i.range }, message: `${i.label}: ${note.each}` })),
    });
    return [d];
  },
};

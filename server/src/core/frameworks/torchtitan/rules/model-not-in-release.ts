/**
 * model-not-in-release: A model name or flavor the targeted torchtitan release does not register: the launch fails.
 *
 * module-not-in-release: An extension module in torchtitan's package that the targeted release does not ship: ModuleNotFoundError at launch.
 *
 * What each release registers is read from the release itself (scripts/titan-releases.py writes
 * releases.data.ts from the installed v0.1.0 … v0.2.2; docs/oracle.md), never typed by hand:
 *  - model-not-in-release: `model.name` is not a train spec of the release (`get_train_spec` raises
 *    `ValueError: Model X is not registered.`, protocols/train_spec.py:108-112 at v0.1.0; `TrainSpec X is not
 *    registered.`, :71-87 at v0.2.x), or `model.flavor` is not one of that spec's flavors (train.py looks up
 *    `model_args[flavor]`: KeyError). Judged only where another release registers the name (a config of
 *    another release: gpt_oss before v0.2.1) or the name differs from a registered one only in case ("8b"):
 *    a name no release ever had is a fork's or a downstream repository's own (they register their own models
 *    and flavors). Names an experiment registers only from its own train script (v0.1.0's flux, deepseek3,
 *    llama4_multimodal) and specs whose module the generator could not import are not judged either.
 *    Silent when anything else can register a spec: `experimental.custom_import` (train.py imports it), an
 *    extension module outside torchtitan, a workspace with its own torchtitan package or config sources, or a
 *    run script with its own training entry.
 *  - module-not-in-release: `job.custom_config_module` (v0.2.x, config/manager.py:95-115 at v0.2.2) or
 *    `experimental.custom_args_module` (v0.1.0, config_manager.py:742-760) names a `torchtitan.*` module the
 *    release does not ship; ConfigManager imports it before reading any key. Modules outside torchtitan are
 *    looked up in the workspace as before (workspace/forkSchema.ts).
 * A stated release decides; an inferred one is a set of candidate releases (releaseRegistry.ts): the finding
 * rests on the version (capped to a warning) unless it holds at every candidate, which the detail then says.
 */
import { diag, fix, firstFitting } from "../../../diagnostics/build";
import { restingOn } from "../../../provenance";
import { findEntry, stringValue } from "../../../model/document";
import type { Diagnostic } from "../../../model/types";
import type { TitanContext, TitanRule } from "../context";
import { clip } from "../related";
import { missingPart, modelVerdict, movedModule, moduleShipped, targetReleases, type ModelVerdict } from "../releaseRegistry";
import { suggest } from "../schema/index";
import { moduleKeyAt } from "../schema/view";
import { RELEASES, type Release } from "../versions";

/** The extension module the release reads, as written (the key its date reads). */
function extensionModule(ctx: TitanContext, release: Release): { name: string; key: [string, string] } | undefined {
  const key = moduleKeyAt(RELEASES[release].date);
  const name = stringValue(findEntry(ctx.doc, ...key))?.trim();
  return name ? { name, key } : undefined;
}

/** Anything that can register a train spec the release's registry does not list. */
function otherRegistrations(ctx: TitanContext, release: Release): boolean {
  if (ctx.forkCode || ctx.workspaceSchema?.length || ctx.launcher?.source === "custom-entry" || ctx.fork) return true;
  if (stringValue(findEntry(ctx.doc, "experimental", "custom_import"))?.trim()) return true;
  const ext = extensionModule(ctx, release);
  return !!ext && moduleShipped(release, ext.name) === undefined;
}

/** Whether some release registers the model (and, with `flavor`, that flavor of it). */
function knownUpstream(name: string, flavor?: string): boolean {
  return (Object.keys(RELEASES) as Release[]).some((r) => {
    const v = modelVerdict(r, name, flavor ?? "");
    return flavor === undefined ? v.kind !== "no-model" : v.kind === "ok";
  });
}

/** A name that differs only in case first (flavor "8b" for "8B"), else the did-you-mean candidates. */
function closest(word: string, names: readonly string[]): string[] {
  const same = names.filter((n) => n.toLowerCase() === word.toLowerCase());
  return same.length ? same : suggest(word, names);
}

function span(cands: readonly Release[]): string {
  return cands.length === 1 ? cands[0]! : `${cands[0]} … ${cands[cands.length - 1]}`;
}

export const modelNotInRelease: TitanRule = {
  codes: ["model-not-in-release"],
  restsOn: ["version"],
  run(ctx) {
    const t = targetReleases(ctx);
    if (!t || otherRegistrations(ctx, t.target)) return [];
    const nameE = findEntry(ctx.doc, "model", "name");
    const flavorE = findEntry(ctx.doc, "model", "flavor");
    const name = stringValue(nameE)?.trim() ?? "llama3";
    const flavor = stringValue(flavorE)?.trim() ?? "debugmodel";
    const v = modelVerdict(t.target, name, flavor);
    if (v.kind === "ok" || v.kind === "unknown") return [];
    // A name no upstream release ever registered is a fork's or a downstream repository's own model or flavor
    // (they register their own: facebookresearch/MuLoCo's flavors, a fork's llama3_moe): not judged. What is
    // judged is a config of another release (gpt_oss before v0.2.1) and a slip in case ("8b" for "8B").
    if (!knownUpstream(name, v.kind === "no-flavor" ? flavor : undefined) && closest(v.kind === "no-model" ? name : flavor, v.kind === "no-model" ? v.names : v.flavors).every((c) => c.toLowerCase() !== (v.kind === "no-model" ? name : flavor).toLowerCase())) return [];
    // every candidate release must fail (the model or the flavor missing) for the finding to rest on no guess
    const all = t.candidates.every((r) => ["no-model", "no-flavor"].includes(modelVerdict(r, name, flavor).kind));
    const id = t.target;
    const d = v.kind === "no-model" ? noModel(id, name, v, nameE) : noFlavor(ctx, id, name, flavor, v, flavorE ?? nameE);
    if (!d) return [];
    if (all && t.candidates.length > 1) {
      d.detail = `${d.detail} This holds at every torchtitan release the file's keys allow (${span(t.candidates)}), so it does not rest on the inferred version.`;
      return [restingOn(d, [])];
    }
    return [d];
  },
};

function noModel(id: Release, name: string, v: Extract<ModelVerdict, { kind: "no-model" }>, e: ReturnType<typeof findEntry>): Diagnostic | undefined {
  if (!e) return undefined; // the default llama3 is in every release
  const cands = closest(name, v.names);
  const other = (Object.keys(RELEASES) as Release[]).filter((r) => r !== id && modelVerdict(r, name, "").kind !== "no-model");
  const elsewhere = other.length ? ` torchtitan ${other.join(", ")} register${other.length === 1 ? "s" : ""} it.` : "";
  const message = firstFitting([
    `Model "${clip(name, 40)}" is not registered in torchtitan ${id}: get_train_spec raises ValueError at launch`,
    `Model "${clip(name, 40)}" is not registered in torchtitan ${id}: ValueError at launch`,
  ]);
  return diag("model-not-in-release", "error", e.value.range, message, cands.length ? { fixes: cands.slice(0, 3).map((n, i) => fix(`Change to "${n}"`, [{ range: e.value.range, newText: JSON.stringify(n) }], i === 0)) } : undefined, {
    detail: `model.name "${name}" is not a train spec of torchtitan ${id} (registered: ${v.names.join(", ")}): get_train_spec raises ValueError before training.${elsewhere}${cands.length ? ` Did you mean "${cands[0]}"?` : ""}`,
  });
}

function noFlavor(ctx: TitanContext, id: Release, name: string, flavor: string, v: Extract<ModelVerdict, { kind: "no-flavor" }>, e: ReturnType<typeof findEntry>): Diagnostic | undefined {
  const range = e?.value.range;
  if (!range) return undefined;
  const cands = closest(flavor, v.flavors);
  const message = firstFitting([
    `Flavor "${clip(flavor, 30)}" is not a flavor of ${clip(name, 30)} in torchtitan ${id}: KeyError at launch`,
    `Flavor "${clip(flavor, 30)}" is not in torchtitan ${id}: KeyError at launch`,
  ]);
  const flavorE = findEntry(ctx.doc, "model", "flavor");
  return diag("model-not-in-release", "error", range, message, flavorE && cands.length ? { fixes: cands.slice(0, 3).map((n, i) => fix(`Change to "${n}"`, [{ range: flavorE.value.range, newText: JSON.stringify(n) }], i === 0)) } : undefined, {
    detail: `model.flavor "${flavor}" is not one of ${name}'s flavors in torchtitan ${id} (${v.flavors.join(", ")}): looking up the model arguments raises KeyError before training.${cands.length ? ` Did you mean "${cands[0]}"?` : ""}`,
  });
}

export const moduleNotInRelease: TitanRule = {
  codes: ["module-not-in-release"],
  restsOn: ["version"],
  run(ctx) {
    const t = targetReleases(ctx);
    if (!t || ctx.forkCode) return [];
    const ext = extensionModule(ctx, t.target);
    if (!ext || moduleShipped(t.target, ext.name) !== false) return [];
    const e = findEntry(ctx.doc, ...ext.key)!;
    const missing = missingPart(t.target, ext.name);
    const id = t.target;
    // the same module under another package of this release (flux moved from experiments to models)
    const tail = ext.name.split(".").slice(-2).join(".");
    const moved = ext.name.split(".").length > 2 ? movedModule(id, tail) : undefined;
    const fixes = moved ? { fixes: [fix(`Change to "${moved}"`, [{ range: e.value.range, newText: JSON.stringify(moved) }], true)] } : undefined;
    const d = diag("module-not-in-release", "error", e.value.range, firstFitting([
      `torchtitan ${id} has no module ${clip(ext.name, 60)}: ModuleNotFoundError at launch`,
      `torchtitan ${id} has no module ${clip(missing, 60)}: ModuleNotFoundError at launch`,
    ]), fixes, {
      detail: `${ext.key.join(".")} = "${ext.name}": ConfigManager imports it before reading any key, and torchtitan ${id} does not ship ${missing}, so the launch fails with ModuleNotFoundError (a config of another release, or of a fork).${moved ? ` This release has the module as ${moved}.` : ""}`,
    });
    const all = t.candidates.every((r) => {
      const x = extensionModule(ctx, r);
      return x?.name === ext.name && moduleShipped(r, x.name) === false;
    });
    if (all && t.candidates.length > 1) {
      d.detail = `${d.detail} This holds at every torchtitan release the file's keys allow (${span(t.candidates)}), so it does not rest on the inferred version.`;
      return [restingOn(d, [])];
    }
    return [d];
  },
};

/**
 * What each torchtitan TOML release registers, read from the release itself by scripts/titan-releases.py into
 * releases.data.ts (issue #32): the train specs `get_train_spec` accepts (protocols/train_spec.py:108-112 at
 * v0.1.0, :71-87 at v0.2.x) with their flavors, the module names an extension module key can import, and the
 * submodules a model builds in a dtype of its own (gpt_oss's `TransformerBlock(...).to(torch.bfloat16)`,
 * models/gpt_oss/model/model.py:339-342 at v0.2.2, experiments/gpt_oss/model/model.py at v0.2.1).
 *
 * The releases a file may target: the stated release, else (an inferred version) every release inside the
 * window the keys allow (robust.ts), else the release the inferred version reads its schema from. A `main@`
 * date that is stated is no release: its registry is not known, and nothing here answers for it.
 */
import { isKnown } from "../../provenance";
import type { TitanContext } from "./context";
import { RELEASE_REGISTRY, type ReleaseModel } from "./releases.data";
import { candidateDates } from "./robust";
import { RELEASES, type Release, type TitanVersion } from "./versions";
import type { ResolvedPrecision } from "../../analysis";
import type { DType } from "../../model/types";

export type ModelVerdict = { kind: "ok" } | { kind: "unknown"; why: string } | { kind: "no-model"; names: string[] } | { kind: "no-flavor"; flavors: string[] };

/**
 * The targeted release, and the candidate releases when the version is only inferred; undefined: not known.
 * An inferred version's candidates are the releases inside the window its keys allow (robust.ts); a window with
 * no release in it (a main-branch date between releases, or before v0.1.0) has no known registry.
 */
export function targetReleases(ctx: TitanContext): { target: Release; candidates: Release[] } | undefined {
  const v = ctx.version.value;
  if (v.whatIf) return { target: "v0.2.2", candidates: ["v0.2.2"] };
  if (!v.era.readsToml) return undefined;
  if (isKnown(ctx.version.kind)) return v.id in RELEASES ? { target: v.id as Release, candidates: [v.id as Release] } : undefined;
  const c = candidateDates(ctx);
  const inWindow = c ? (Object.keys(RELEASES) as Release[]).filter((r) => RELEASES[r].date >= c.from && RELEASES[r].date <= c.until) : [];
  if (!inWindow.length) return undefined;
  const target = v.id in RELEASES && inWindow.includes(v.id as Release) ? (v.id as Release) : inWindow[inWindow.length - 1]!;
  return { target, candidates: inWindow };
}

export function modelAt(release: Release, name: string): ReleaseModel | undefined {
  const models = RELEASE_REGISTRY[release]?.models;
  return models && Object.hasOwn(models, name) ? models[name] : undefined; // a name like "constructor" is no model
}

/** Whether `release` builds model `name` with flavor `flavor` (get_train_spec, then model_args[flavor]). */
export function modelVerdict(release: Release, name: string, flavor: string): ModelVerdict {
  const reg = RELEASE_REGISTRY[release];
  if (!reg) return { kind: "unknown", why: `no registry for ${release}` };
  const m = modelAt(release, name);
  if (!m) return { kind: "no-model", names: Object.keys(reg.models).filter((n) => !reg.models[n]!.ownTrainScript).sort() };
  // registered only by an experiment's own train script: torchtitan's train.py lacks it, that script has it
  if (m.ownTrainScript) return { kind: "unknown", why: `registered by ${m.ownTrainScript} when its own train script runs` };
  if (!m.flavors) return { kind: "unknown", why: m.unknownBecause ?? "its module does not import on the generator's host" };
  return m.flavors.includes(flavor) ? { kind: "ok" } : { kind: "no-flavor", flavors: m.flavors };
}

/** Whether `release` ships module `dotted` (a torchtitan.* name); undefined for names outside torchtitan. */
export function moduleShipped(release: Release, dotted: string): boolean | undefined {
  if (dotted !== "torchtitan" && !dotted.startsWith("torchtitan.")) return undefined;
  const reg = RELEASE_REGISTRY[release];
  if (!reg) return undefined;
  return reg.modules.includes(dotted);
}

/** The one module of `release` whose dotted name ends with `.tail` (e.g. "flux.job_config"), if exactly one. */
export function movedModule(release: Release, tail: string): string | undefined {
  const hits = (RELEASE_REGISTRY[release]?.modules ?? []).filter((m) => m.endsWith(`.${tail}`));
  return hits.length === 1 ? hits[0] : undefined;
}

/** The deepest torchtitan package of `dotted` the release ships (what the ModuleNotFoundError names next). */
export function missingPart(release: Release, dotted: string): string {
  const parts = dotted.split(".");
  for (let i = 1; i <= parts.length; i++) {
    const head = parts.slice(0, i).join(".");
    if (!RELEASE_REGISTRY[release]!.modules.includes(head)) return head;
  }
  return dotted;
}

/**
 * The parameters a model's own code stores in a dtype other than training.dtype, at the release the version
 * reads its schema from: submodule → dtype (only where the release builds them so whatever training.dtype is).
 */
export function storageOverrides(v: TitanVersion, model: string | undefined): Record<string, DType> | undefined {
  if (!v.era.readsToml && !v.whatIf) return undefined;
  const rel: Release = v.whatIf ? "v0.2.2" : v.id in RELEASES ? (v.id as Release) : v.schemaRelease;
  const s = modelAt(rel, model ?? "llama3")?.storage;
  if (!s) return undefined;
  const out: Record<string, DType> = {};
  for (const [k, d] of Object.entries(s)) if (typeof d === "string") out[k] = d as DType;
  return Object.keys(out).length ? out : undefined;
}

/**
 * The precision with the parameters the model's own code keeps in another dtype (gpt_oss's bfloat16 layers):
 * paramStorage stays training.dtype (the rest of the model), paramStorageParts lists the others.
 */
export function withModelStorage(p: ResolvedPrecision | undefined, v: TitanVersion, model: string | undefined): ResolvedPrecision | undefined {
  const o = p && storageOverrides(v, model);
  if (!p || !o) return p;
  const parts = Object.entries(o).filter(([, d]) => d !== p.paramStorage.dtype);
  if (!parts.length) return p;
  const rel = v.whatIf ? "v0.2.2" : v.id in RELEASES ? v.id : v.schemaRelease;
  return {
    ...p,
    paramStorage: { ...p.paramStorage, knob: `${p.paramStorage.knob}, for the parameters outside ${parts.map(([m]) => m).join(", ")}` },
    paramStorageParts: parts.map(([modules, dtype]) => ({ modules, dtype, knob: `${model ?? "llama3"} builds ${modules} in ${dtype} whatever training.dtype says (torchtitan ${rel}, read by scripts/titan-releases.py)` })),
  };
}

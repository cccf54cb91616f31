/**
 * Cross-file links between YAML configs and the DeepSpeed JSON they name (spec §6.7):
 * accelerate `deepspeed_config.deepspeed_config_file`, Axolotl `deepspeed:`, Lightning
 * `trainer.strategy.init_args.config`, transformers TrainingArguments (TRL, LLaMA-Factory) `deepspeed:`. This module finds, for a DeepSpeed file, the YAML configs nearby
 * that use it (so a conflict is reported on both files), and reads the mode each one requests.
 *
 * Assumption `referrer-search` (bounded, documented): referrers are looked for in the JSON's folder, its
 * parent and the parent's immediate subfolders (at most 40 folders and 300 YAML files, each under 256 kB,
 * and only files whose text names the JSON's file name). An Axolotl example two levels away from
 * `deepspeed_configs/` is therefore not found from the JSON side; the YAML side still reports it.
 */
import type { AnalysisEnv } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { parseYamlDocument } from "../../parse/yaml";
import type { Range } from "../../model/types";
import { dsFacts, type DsMode } from "../deepspeed/facts";
import { loadDs, type LinkedDs } from "../deepspeed/linked";
import { detectDialect } from "../transformers/detect";
import { dirname, joinPath, readLinked } from "./linkedFiles";
import { linkOutside } from "../../workspace/boundary";
import { View } from "./view";

export type { DsMode };

/** How a YAML's `deepspeed:` key was resolved: a mapping written inline, a file read, or a file not found. */
export type DsLinkSource = "inline" | "file" | "missing";

/**
 * The DeepSpeed config a YAML's `deepspeed:` key names (Axolotl, transformers TrainingArguments): the mapping
 * itself when written inline, else the file it names, read relative to the YAML (deepspeed/linked.ts `loadDs`).
 * A file not found is `dsSource: "missing"` with `ds` from `missing(rel)` (Axolotl's bundled table or an
 * unknown stand-in) or undefined; `isPath(rel)` false (a template) leaves both undefined.
 */
export function deepspeedLink(
  v: View,
  doc: ConfigDocument,
  env: AnalysisEnv,
  opts: { missing?: (rel: string) => LinkedDs | undefined; isPath?: (rel: string) => boolean } = {},
): { ds: LinkedDs | undefined; dsSource: DsLinkSource | undefined } {
  if (v.isSection("deepspeed")) {
    const view = v.at("deepspeed");
    return { ds: { path: "the inline `deepspeed:` mapping", doc, view, facts: dsFacts(view) }, dsSource: "inline" };
  }
  const rel = v.str("deepspeed");
  if (!rel) return { ds: undefined, dsSource: undefined };
  const ds = loadDs(env, rel);
  if (ds) return { ds, dsSource: "file" };
  if (opts.isPath && !opts.isPath(rel)) return { ds: undefined, dsSource: undefined };
  const stand = opts.missing?.(rel);
  if (stand?.missing === "unknown" && linkOutside(env, rel)) stand.outside = true;
  return { ds: stand, dsSource: "missing" };
}

export interface Referrer {
  framework: "accelerate" | "axolotl" | "lightning" | "transformers";
  /** Absolute path of the YAML. */
  path: string;
  /** Path relative to the JSON's folder, for messages. */
  relPath: string;
  /** What it sets, e.g. "`mixed_precision: bf16`". */
  label: string;
  /** Where it sets it in the YAML (the key), when written. */
  keyRange?: Range;
  mode?: DsMode;
  worldSize?: number;
}

/** The DS path a YAML names, with the framework that reads it, or undefined. */
export function dsLinkOf(v: View): { framework: Referrer["framework"]; rel: string; path: string[] } | undefined {
  if (v.has("distributed_type")) {
    const rel = v.str("deepspeed_config", "deepspeed_config_file");
    return rel ? { framework: "accelerate", rel, path: ["deepspeed_config", "deepspeed_config_file"] } : undefined;
  }
  // A TrainingArguments file (TRL, LLaMA-Factory, HfArgumentParser): `deepspeed:` is the path the Trainer reads.
  const hf = detectDialect(v.doc);
  if (hf) {
    const rel = v.str("deepspeed");
    return rel ? { framework: "transformers", rel, path: ["deepspeed"] } : undefined;
  }
  if (v.has("base_model") || v.has("datasets")) {
    const rel = v.str("deepspeed");
    return rel ? { framework: "axolotl", rel, path: ["deepspeed"] } : undefined;
  }
  for (const root of [[], ["fit"], ["lightning"]]) {
    const t = v.at(...root);
    const rel = t.str("trainer", "strategy", "init_args", "config");
    if (rel) return { framework: "lightning", rel, path: [...root, "trainer", "strategy", "init_args", "config"] };
  }
  return undefined;
}

/** The mode a linking YAML asks DeepSpeed for, with a label for messages. */
export function requestedMode(v: View, framework: Referrer["framework"]): { mode?: DsMode; label: string; key?: string[] } {
  if (framework === "accelerate") {
    const e = v.entry("mixed_precision");
    if (!e) return { label: "no `mixed_precision`" };
    const raw = e.value.kind === "boolean" && e.value.value === false ? "no" : String(e.value.value).toLowerCase();
    const mode: DsMode | undefined = raw === "bf16" || raw === "fp8" ? "bf16" : raw === "fp16" ? "fp16" : raw === "no" ? "fp32" : undefined;
    return mode ? { mode, label: `\`mixed_precision: ${raw}\``, key: ["mixed_precision"] } : { label: `\`mixed_precision: ${raw}\`` };
  }
  if (framework === "axolotl") {
    const bf16 = v.scalar("bf16");
    const fp16 = v.bool("fp16");
    if (bf16 === false) return fp16 ? { mode: "fp16", label: "`fp16: true`", key: ["fp16"] } : { mode: "fp32", label: "`bf16: false`", key: ["bf16"] };
    // Assumption `axolotl-auto-bf16`: bf16 `auto` (the default) resolves to bf16 on Ampere or newer GPUs.
    if (bf16 === undefined && fp16) return { mode: "fp16", label: "`fp16: true`", key: ["fp16"] };
    return { mode: "bf16", label: bf16 === undefined ? "`bf16` (default auto → bf16 on Ampere+)" : `\`bf16: ${String(bf16)}\``, key: bf16 === undefined ? undefined : ["bf16"] } as { mode: DsMode; label: string; key?: string[] };
  }
  if (framework === "transformers") return transformersMode(v);
  for (const root of [[], ["fit"], ["lightning"]]) {
    const p = v.at(...root).scalar("trainer", "precision");
    if (p === undefined) continue;
    const s = String(p);
    const mode: DsMode | undefined = /^bf16/.test(s) ? "bf16" : /^16/.test(s) ? "fp16" : /^32/.test(s) ? "fp32" : undefined;
    return { mode, label: `\`trainer.precision: ${s}\``, key: [...root, "trainer", "precision"] };
  }
  return { mode: "fp32", label: "no `trainer.precision` (default 32-true)" };
}

/**
 * The mode a TrainingArguments file asks DeepSpeed for: the Trainer's fill_match compares `bf16`/`fp16` with the
 * file's `bf16.enabled`/`fp16.enabled` (transformers integrations/deepspeed.py `trainer_config_process`,
 * 137-197@4.57.1). Neither written: TrainingArguments' default false (fp32), except in TRL, whose default `bf16`
 * depends on its version (trl/trainer/base_config.py:105@v1.9.0): no mode, no conflict claimed.
 */
function transformersMode(v: View): { mode?: DsMode; label: string; key?: string[] } {
  if (v.bool("fp16") === true) return { mode: "fp16", label: "`fp16: true`", key: ["fp16"] };
  if (v.bool("bf16") === true) return { mode: "bf16", label: "`bf16: true`", key: ["bf16"] };
  if (v.bool("pure_bf16") === true) return { mode: "bf16", label: "`pure_bf16: true`", key: ["pure_bf16"] };
  if (v.bool("bf16") === false) return { mode: "fp32", label: "`bf16: false`", key: ["bf16"] };
  if (detectDialect(v.doc)?.dialect === "trl") return { label: "no `bf16` (TRL's default depends on its version)" };
  return { mode: "fp32", label: "no `bf16` (default false)" };
}

function worldSizeOf(v: View, framework: Referrer["framework"]): number | undefined {
  if (framework === "accelerate") {
    const n = v.int("num_processes");
    return n && n > 0 ? n : undefined;
  }
  if (framework === "lightning") {
    for (const root of [[], ["fit"], ["lightning"]]) {
      const t = v.at(...root, "trainer");
      const dev = t.int("devices");
      if (dev && dev > 0) return dev * (t.int("num_nodes") ?? 1);
    }
  }
  return undefined;
}

function basename(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

function relative(fromDir: string, to: string): string {
  const a = fromDir.split("/").filter(Boolean);
  const b = to.split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/") || basename(to);
}

/** YAML configs near a DeepSpeed JSON that name it (see the assumption at the top). */
export function referrersOf(env: AnalysisEnv): Referrer[] {
  const self = env.documentPath;
  if (!self) return [];
  const name = basename(self);
  const dir = dirname(self);
  const parent = dirname(dir);
  const dirs = [dir];
  if (parent !== dir) {
    dirs.push(parent);
    let n = 0;
    for (const sub of env.listDir(parent)) {
      if (n >= 40) break;
      if (sub.includes(".") || sub === basename(dir) || sub === "node_modules") continue;
      dirs.push(joinPath(parent, sub));
      n++;
    }
  }
  const out: Referrer[] = [];
  let read = 0;
  for (const d of dirs) {
    for (const f of env.listDir(d)) {
      if (!/\.ya?ml$/i.test(f) || read >= 300) continue;
      read++;
      const path = joinPath(d, f);
      const text = env.readFile(path);
      if (!text || text.length > 256_000 || !text.includes(name)) continue;
      const doc = parseYamlDocument(`file://${path}`, text);
      if (doc.syntaxErrors.length) continue;
      const v = new View(doc);
      const link = dsLinkOf(v);
      if (!link) continue;
      const linked = readLinked({ ...env, documentPath: path }, link.rel);
      if (!linked || (linked.path !== joinPath("/", self) && linked.path !== self)) continue;
      const req = requestedMode(v, link.framework);
      const r: Referrer = { framework: link.framework, path, relPath: relative(dir, path), label: req.label };
      if (req.mode) r.mode = req.mode;
      const keyRange = req.key ? v.keyRange(...req.key) : undefined;
      if (keyRange) r.keyRange = keyRange;
      const ws = worldSizeOf(v, link.framework);
      if (ws) r.worldSize = ws;
      out.push(r);
    }
  }
  return out;
}

/**
 * Assumption `ds-standalone-evidence`: a DeepSpeed file counts as launched standalone (deepspeed/auto-without-trainer) only when a
 * shell or Slurm script in its folder or the parent folder runs the `deepspeed` launcher and names the
 * file. With no such script we cannot tell, and deepspeed/auto-without-trainer stays silent.
 */
export function standaloneLauncher(env: AnalysisEnv): string | undefined {
  const self = env.documentPath;
  if (!self) return undefined;
  const name = basename(self);
  const dir = dirname(self);
  for (const d of [dir, dirname(dir)]) {
    for (const f of env.listDir(d)) {
      if (!/\.(sh|slurm|bash)$/i.test(f)) continue;
      const text = env.readFile(joinPath(d, f));
      if (!text || text.length > 256_000) continue;
      const hit = text.split(/\r?\n/).find((l) => /(^|\s)deepspeed\s/.test(l) && l.includes(name) && !/accelerate|torchrun|axolotl/.test(l));
      if (hit) return relative(dir, joinPath(d, f));
    }
  }
  return undefined;
}

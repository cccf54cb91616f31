/**
 * Everything a verl rule reads, computed once per document version: the trainer config as Hydra composes it
 * (verl's packaged defaults at the pinned version, then the user's YAML, then the `key=value` / `+key=value`
 * overrides of the launch command, in that order: Hydra applies command-line overrides last), the roles'
 * dtypes, the worker path the version takes, the world size and the version.
 *
 * Two documents reach it: a run script launching `python3 -m verl.trainer.main_ppo …` (its overrides, and the
 * YAML `--config-path/--config-name` name when it can be read beside the script), or a verl trainer YAML (its
 * entries on top of the defaults). Assumption `verl-defaults-table`: a key neither written nor in
 * `data.ts`'s table is not read; a user YAML that cannot be read makes every key it could set unknown.
 */
import { isOutsideWorkspace, OUTSIDE_WORKSPACE } from "../../workspace/boundary";
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import type { Range } from "../../model/types";
import { parseYamlDocument } from "../../parse/yaml";
import { shellScript, type ShellCommand, type ShellWord } from "../../parse/shell";
import type { FactValue } from "../../provenance";
import { packagePin, versionAtLeast } from "../../workspace/packagePin";
import { ancestorDirs, dirname, displayPath, join } from "../../workspace/paths";
import { VERL_AUTOCAST_FIX, VERL_DEFAULTS, VERL_DTYPES, VERL_MEGATRON_DEFAULTS, VERL_NEWEST } from "./data";
import type { DType } from "../../model/types";

export type Scalar = string | number | boolean | null;

export interface VerlValue {
  /** The value; undefined when it is not known (a `$VAR` the script does not set, an unread YAML). */
  value: Scalar | undefined;
  /** `default` (verl's packaged config), `file` (this document), `linked` (the YAML the script names). */
  origin: "default" | "file" | "linked";
  /** User-facing: "verl 0.9.1 default", "line 12", "configs/my.yaml line 4". */
  where: string;
  /** In this document: the value's range (an override's whole `key=value` word). */
  range?: Range;
  /** The override was written with `+` / `++` (Hydra: add a key not in the config). */
  plus?: boolean;
}

export type RoleName = "actor" | "ref" | "critic";

export interface Role {
  name: RoleName;
  /** The dotted prefix of its engine config (fsdp_config). */
  engine: string;
  strategy: VerlValue;
  modelDtype: VerlValue;
  /** `mixed_precision.param_dtype` when written, else undefined (the worker's default applies). */
  paramDtype?: VerlValue;
  reduceDtype?: VerlValue;
  bufferDtype?: VerlValue;
  /** `fsdp_config.dtype` (the legacy workers' param dtype when `mixed_precision` is absent). */
  legacyDtype?: VerlValue;
  /** `megatron.dtype` (the Megatron workers' params_dtype), for `strategy: megatron`. */
  megatronDtype?: VerlValue;
  /** `megatron.override_ddp_config.grad_reduce_in_fp32`, when written (verl's DDP config sets True). */
  megatronGradFp32?: VerlValue;
  optimizer?: VerlValue;
  lr?: VerlValue;
  /** Trains (has an optimizer): actor always, critic when used, ref never. */
  trains: boolean;
}

export interface VerlVersion {
  version: string;
  pinned: boolean;
  detail: string;
}

export interface VerlContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  /** The launch command (run scripts) and the module it runs. */
  command?: ShellCommand;
  module: string;
  values: Map<string, VerlValue>;
  get(key: string): VerlValue | undefined;
  version: VerlVersion;
  versionFact: FactValue;
  /** The workers that run: `legacy` (verl ≤ 0.7 `fsdp_workers.py`, the default there) or `engine`. */
  workers: "legacy" | "engine";
  roles: Role[];
  rollout: { dtype: VerlValue; tp: VerlValue; name: VerlValue };
  worldSize: Sourced<number> | undefined;
  /** Where the config the overrides apply to came from, for the hover. */
  base: string;
  notes: string[];
  assumptions: string[];
}

/** `python3 -m verl.trainer.main_ppo` / `python verl/trainer/main_ppo.py`: the word index of the module, or -1. */
export function verlModuleAt(words: readonly ShellWord[]): { at: number; module: string } | undefined {
  for (let i = 0; i < words.length && i < 64; i++) {
    const w = words[i]!.text;
    if (w === "-m" && /^verl\.trainer\.main_ppo$/.test(words[i + 1]?.text ?? "")) return { at: i + 1, module: words[i + 1]!.text };
    if (/(?:^|\/)verl\/trainer\/main_ppo\.py$/.test(w)) return { at: i, module: "verl.trainer.main_ppo" };
  }
  return undefined;
}

export function verlCommand(doc: ConfigDocument): { command: ShellCommand; at: number; module: string } | undefined {
  if (doc.format !== "shell") return undefined;
  for (const c of shellScript(doc).commands) {
    const m = verlModuleAt(c.words);
    if (m) return { command: c, ...m };
  }
  return undefined;
}

/** Hydra's value grammar for the scalars verl's precision keys take. */
export function hydraScalar(raw: string): Scalar | undefined {
  if (/\$\{?[A-Za-z_@*#0-9]/.test(raw)) return undefined;
  const t = raw.trim();
  if (/^null$/i.test(t) || t === "~") return null;
  if (/^true$/i.test(t)) return true;
  if (/^false$/i.test(t)) return false;
  if (/^[+-]?\d+$/.test(t)) return Number(t);
  if (/^[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?$/.test(t)) return Number(t);
  const q = /^(["'])(.*)\1$/.exec(t);
  return q ? q[2]! : t;
}

function yamlValues(doc: ConfigDocument, origin: "file" | "linked", label: string, values: Map<string, VerlValue>): void {
  for (const e of doc.entries) {
    if (e.value.kind === "table" || e.value.kind === "array") continue;
    if (e.path[0] === "defaults" || e.path[0]?.startsWith("(document")) continue;
    const v = e.value.value;
    const scalar: Scalar | undefined = typeof v === "string" ? (/^\$\{/.test(v) ? v : v) : typeof v === "number" || typeof v === "boolean" || v === null ? v : undefined;
    const val: VerlValue = { value: scalar, origin, where: `${label}line ${e.range.start.line + 1}` };
    if (origin === "file") val.range = e.value.range;
    values.set(e.path.join("."), val);
  }
}

export function verlVersion(env: AnalysisEnv): VerlVersion {
  const pin = packagePin(env, "verl");
  if (pin) return { version: pin.version, pinned: true, detail: `verl ${pin.version} pinned in ${pin.where.replace(/: verl .*$/, "")}` };
  return { version: VERL_NEWEST, pinned: false, detail: `no verl pin found in the workspace; assuming the newest verl (${VERL_NEWEST})` };
}

export function dtypeOf(v: VerlValue | undefined): DType | undefined {
  if (!v || v.value === undefined || v.value === null) return undefined;
  return VERL_DTYPES[String(v.value)];
}

/** The `verl/trainer` folder of a verl source tree in the workspace above the document (a fork), if any. */
function vendoredTrainerDir(env: AnalysisEnv): string | undefined {
  for (const d of ancestorDirs(env)) {
    const t = join(d, "verl/trainer");
    if (env.readFile(join(t, "main_ppo.py")) !== undefined) return t;
  }
  return undefined;
}

/**
 * A --config-path led by the script's folder as a shell writes it: `$(pwd)`, `$PWD`, `${PWD}`, `` `pwd` ``
 * (the working folder: `pwd`), or `$(dirname $0)`, `$(dirname "$0")`, `$(dirname ${BASH_SOURCE[0]})` (the
 * script's folder). Returns the lead and the rest of the path (no other `$`). (`$(cd … && pwd)` is split into
 * words by the shell reader, which does not model command substitution: not read.)
 */
export function scriptDirLead(path: string): { lead: string; rest: string; pwd: boolean } | undefined {
  const p = path.replace(/^["']|["']$/g, "");
  const leads: [RegExp, boolean][] = [
    [/^\$\(pwd\)|^\$\{PWD\}|^\$PWD(?![A-Za-z0-9_])|^`pwd`/, true],
    [/^\$\(dirname\s+"?(?:\$0|\$\{0\}|\$\{BASH_SOURCE\[0\]\}|\$BASH_SOURCE)"?\)/, false],
  ];
  for (const [re, pwd] of leads) {
    const m = re.exec(p);
    if (!m) continue;
    const rest = p.slice(m[0].length).replace(/^\/+/, "");
    if (rest.includes("$")) return undefined;
    return { lead: m[0], rest, pwd };
  }
  return undefined;
}

export function verlContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): VerlContext {
  const version = verlVersion(env);
  const values = new Map<string, VerlValue>();
  const defaultWhere = `verl ${version.version} default`;
  for (const [k, v] of Object.entries(VERL_DEFAULTS)) values.set(k, { value: v, origin: "default", where: defaultWhere });
  const notes: string[] = [];
  const assumptions: string[] = [];
  let base = `verl's packaged \`ppo_trainer.yaml\` (${version.pinned ? `verl ${version.version}` : `verl ${version.version}, assumed`})`;
  let command: ShellCommand | undefined;
  let module = "verl.trainer.main_ppo";
  if (doc.format === "shell") {
    const found = verlCommand(doc);
    if (found) {
      command = found.command;
      module = found.module;
      const args = found.command.words.slice(found.at + 1);
      let configName: string | undefined;
      let configPath: string | undefined;
      const overrides: { word: ShellWord; key: string; raw: string; plus: boolean; del: boolean }[] = [];
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!;
        const cn = /^(?:--config-name|-cn)(?:=(.*))?$/.exec(w.text);
        if (cn) {
          configName = cn[1] ?? args[++i]?.text;
          continue;
        }
        const cp = /^(?:--config-path|-cp)(?:=(.*))?$/.exec(w.text);
        if (cp) {
          configPath = cp[1] ?? args[++i]?.text;
          continue;
        }
        const o = /^(\+{0,2}|~)([A-Za-z_][\w.@/-]*)(?:=(.*))?$/s.exec(w.text);
        if (o && (o[3] !== undefined || o[1] === "~")) overrides.push({ word: w, key: o[2]!, raw: o[3] ?? "", plus: o[1]!.startsWith("+"), del: o[1] === "~" });
        else if (/^\$\{?[@*]/.test(w.text) || /^\$\{/.test(w.text)) notes.push(`\`${w.text}\` on the launch command may add overrides at run time; they are not known here.`);
      }
      const name = configName?.replace(/\.ya?ml$/, "");
      const scriptDir = env.documentPath ? dirname(env.documentPath) : undefined;
      // `$(pwd)`, `$PWD` and `$(dirname $0)` lead a --config-path in many run scripts:
      // the script's folder, as the shell gives it when the script is run from there (assumption
      // `verl-config-path-pwd`; `$(dirname $0)` is the script's folder wherever it is run from).
      const dirLead = configPath !== undefined && scriptDir ? scriptDirLead(configPath) : undefined;
      // `$(pwd)` is the folder the script is run from: its own, or one above it ("run from the project root", a
      // common comment in these scripts): the nearest of them (the upward search of paths.ts) that holds
      // `<rest>/<config-name>.yaml`, else the script's own folder.
      const pwdDir = dirLead?.pwd && name ? ancestorDirs(env).find((d) => env.readFile(join(join(d, dirLead.rest), `${name}.yaml`)) !== undefined) ?? scriptDir : scriptDir;
      if (dirLead) assumptions.push(dirLead.pwd ? (pwdDir === scriptDir ? `\`verl-config-path-pwd\` — \`--config-path=${configPath}\`: \`${dirLead.lead}\` is taken as the script's folder (the script run from its own folder, as its README-style launch does).` : `\`verl-config-path-pwd\` — \`--config-path=${configPath}\`: \`${dirLead.lead}\` is taken as \`${displayPath(pwdDir!, env)}\`, the nearest folder above the script holding \`${dirLead.rest}/${name}.yaml\` (the script run from there).`) : `\`verl-config-path-pwd\` — \`--config-path=${configPath}\`: \`${dirLead.lead}\` is the script's own folder.`);
      const cpath = dirLead ? join(pwdDir!, dirLead.rest) : configPath && !/\$/.test(configPath) ? configPath.replace(/^\.\//, "") : undefined;
      // Hydra resolves a relative --config-path (and main_ppo's own `config_path="config"`) against the file
      // declaring @hydra.main, verl/trainer/main_ppo.py: in a workspace that vendors verl (a fork, installed
      // editable: assumption `verl-vendored`) that is its own verl/trainer/config.
      const vendored = configPath === undefined || (cpath !== undefined && !cpath.startsWith("/")) ? vendoredTrainerDir(env) : undefined;
      const vendoredConfig = vendored ? join(join(vendored, cpath ?? "config"), `${name ?? "ppo_trainer"}.yaml`) : undefined;
      const vendoredText = vendoredConfig ? env.readFile(vendoredConfig) : undefined;
      const packaged = !vendoredText && (configPath === undefined || cpath === "config" || cpath === "config/");
      if (vendoredConfig && vendoredText !== undefined && vendoredText.length <= 1_000_000) {
        yamlValues(parseYamlDocument(vendoredConfig, vendoredText), "linked", `${displayPath(vendoredConfig, env)} `, values);
        base = `\`${displayPath(vendoredConfig, env)}\` (the workspace's own verl, as Hydra resolves --config-path against verl/trainer/main_ppo.py) over verl's defaults`;
        assumptions.push(`\`verl-vendored\` — the workspace holds verl's source (\`${displayPath(join(vendored!, "main_ppo.py"), env)}\`), taken as the verl that runs; its \`${name ?? "ppo_trainer"}.yaml\` is read, its version is not.`);
      } else if (name === "ppo_megatron_trainer" && packaged) {
        // verl's packaged Megatron trainer config: the same defaults with every role on the Megatron workers.
        for (const [k, v] of Object.entries(VERL_MEGATRON_DEFAULTS)) values.set(k, { value: v, origin: "default", where: `${defaultWhere} (ppo_megatron_trainer.yaml)` });
        base = `verl's packaged \`ppo_megatron_trainer.yaml\` (${version.pinned ? `verl ${version.version}` : `verl ${version.version}, assumed`})`;
      } else if (name && name !== "ppo_trainer") {
        // The user's YAML: read beside the script (the script's folder is where such scripts are run from,
        // assumption `verl-config-path`).
        const candidates: string[] = [];
        if (scriptDir) {
          if (cpath && cpath.startsWith("/")) candidates.push(join(cpath, `${name}.yaml`));
          else if (cpath) candidates.push(join(join(scriptDir, cpath), `${name}.yaml`));
          candidates.push(join(scriptDir, `${name}.yaml`));
        }
        let read = false;
        for (const p of candidates) {
          const text = env.readFile(p);
          if (text === undefined || text.length > 1_000_000) continue;
          const linked = parseYamlDocument(p, text);
          yamlValues(linked, "linked", `${displayPath(p, env)} `, values);
          base = `\`${displayPath(p, env)}\` over verl's defaults`;
          read = true;
          break;
        }
        if (!read) {
          // Every key the unread YAML could set is unknown; the overrides below are still known.
          for (const [k, v] of values) if (v.origin === "default") values.set(k, { value: undefined, origin: "default", where: `set by \`--config-name ${name}\`, not read` });
          // `--config-path` outside the workspace: not read, and never shown (core/workspace/boundary.ts).
          const outside = cpath !== undefined && candidates.length > 1 && isOutsideWorkspace(env, candidates[0]!);
          base = outside ? `\`--config-name ${name}\` (its \`--config-path\` ${OUTSIDE_WORKSPACE}: values it sets are unknown)` : `\`--config-name ${name}\` (not found beside the script: values it sets are unknown)`;
          assumptions.push(outside ? `\`verl-config-path\` — the config \`${name}.yaml\`'s \`--config-path\` ${OUTSIDE_WORKSPACE}; only the overrides on the command line are known.` : `\`verl-config-path\` — the config \`${name}.yaml\` was looked for ${cpath ? `in \`${cpath}\` ` : ""}beside the script and not found; only the overrides on the command line are known.`);
        }
      }
      for (const o of overrides) {
        if (o.del) {
          values.delete(o.key);
          continue;
        }
        const val: VerlValue = { value: hydraScalar(o.raw), origin: "file", where: `line ${o.word.range.start.line + 1}`, range: o.word.range };
        if (o.plus) val.plus = true;
        values.set(o.key, val);
      }
    }
  } else {
    yamlValues(doc, "file", "", values);
    base = `this file over verl's packaged defaults (${version.pinned ? `verl ${version.version}` : `verl ${version.version}, assumed`})`;
  }
  const get = (k: string): VerlValue | undefined => {
    const v = values.get(k);
    // One level of `${a.b}` interpolation (ref.strategy follows actor.strategy).
    if (v && typeof v.value === "string" && /^\$\{[\w.]+\}$/.test(v.value)) {
      const t = values.get(v.value.slice(2, -1));
      return t ? { ...t, where: `${t.where} (through \`${v.value}\`)` } : { ...v, value: undefined };
    }
    return v;
  };

  const legacySetting = get("trainer.use_legacy_worker_impl");
  const workers: "legacy" | "engine" = versionAtLeast(version.version, VERL_AUTOCAST_FIX) ? "engine" : legacySetting?.value === "disable" ? "engine" : "legacy";

  const role = (name: RoleName, prefix: string, engines: string[], trains: boolean): Role => {
    // The critic's engine config moved (critic.model.fsdp_config → critic.fsdp); the written one decides.
    const engine = engines.find((e) => [...values.keys()].some((k) => k.startsWith(`${e}.`) && values.get(k)!.origin !== "default")) ?? engines[0]!;
    const at = (k: string) => get(`${engine}.${k}`);
    const r: Role = { name, engine, strategy: get(`${prefix}.strategy`) ?? { value: "fsdp", origin: "default", where: defaultWhere }, modelDtype: at("model_dtype") ?? { value: "fp32", origin: "default", where: defaultWhere }, trains };
    const p = at("mixed_precision.param_dtype");
    if (p) r.paramDtype = p;
    const rd = at("mixed_precision.reduce_dtype");
    if (rd) r.reduceDtype = rd;
    const b = at("mixed_precision.buffer_dtype");
    if (b) r.bufferDtype = b;
    const ld = at("dtype");
    if (ld) r.legacyDtype = ld;
    // Absent from the composed config (a fork's YAML without the key): McoreEngineConfig's own default, bfloat16.
    const md = get(`${prefix}.megatron.dtype`) ?? (r.strategy.value === "megatron" ? { value: "bfloat16", origin: "default" as const, where: `${defaultWhere} (McoreEngineConfig)` } : undefined);
    if (md) r.megatronDtype = md;
    const mg = get(`${prefix}.megatron.override_ddp_config.grad_reduce_in_fp32`);
    if (mg) r.megatronGradFp32 = mg;
    const opt = get(`${prefix}.optim.optimizer`);
    if (opt) r.optimizer = opt;
    const lr = get(`${prefix}.optim.lr`);
    if (lr) r.lr = lr;
    return r;
  };
  const adv = get("algorithm.adv_estimator");
  const criticEnable = get("critic.enable");
  const criticUsed = criticEnable?.value === true || (criticEnable?.value !== false && adv?.value === "gae");
  const roles: Role[] = [role("actor", "actor_rollout_ref.actor", ["actor_rollout_ref.actor.fsdp_config"], true), role("ref", "actor_rollout_ref.ref", ["actor_rollout_ref.ref.fsdp_config"], false)];
  if (criticUsed) roles.push(role("critic", "critic", ["critic.model.fsdp_config", "critic.fsdp"], true));

  const rollout = {
    dtype: get("actor_rollout_ref.rollout.dtype") ?? { value: undefined, origin: "default" as const, where: defaultWhere },
    tp: get("actor_rollout_ref.rollout.tensor_model_parallel_size") ?? { value: undefined, origin: "default" as const, where: defaultWhere },
    name: get("actor_rollout_ref.rollout.name") ?? { value: undefined, origin: "default" as const, where: defaultWhere },
  };

  let worldSize: Sourced<number> | undefined;
  if (settings.worldSize && settings.worldSize > 0) worldSize = { value: settings.worldSize, source: "setting", kind: settings.origin === "cli" ? "cli" : "setting", detail: "from the precisionLens.worldSize setting / --world-size" };
  else {
    const g = get("trainer.n_gpus_per_node");
    const n = get("trainer.nnodes");
    if (typeof g?.value === "number" && typeof n?.value === "number" && g.value > 0 && n.value > 0) {
      const known = g.origin !== "default" && n.origin !== "default";
      worldSize = { value: g.value * n.value, source: known ? "config" : "default", kind: known ? "file" : "default", detail: `trainer.n_gpus_per_node ${g.value} (${g.where}) × trainer.nnodes ${n.value} (${n.where})` };
    }
  }
  const versionFact: FactValue = version.pinned ? { value: `verl ${version.version}`, kind: "workspace-pin", detail: version.detail } : { value: `verl ${VERL_NEWEST}`, kind: "default", detail: "the newest release" };
  return { doc, settings, env, command, module, values, get, version, versionFact, workers, roles, rollout, worldSize, base, notes, assumptions };
}

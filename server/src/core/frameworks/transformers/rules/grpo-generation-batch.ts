/**
 * transformers/grpo-generation-batch: TRL's GRPOConfig batch checks: the generation batch must split into whole prompt groups (`num_generations`) and whole global batches.
 *
 * TRL's GRPOConfig `__post_init__` derives the generation batch from `per_device_train_batch_size` × the number of
 * processes × `steps_per_generation` (default `gradient_accumulation_steps`), or takes `generation_batch_size`, and
 * raises ValueError when (read at v0.18.0, v0.19.0, v0.20.0, v0.21.0, v0.23.0, v0.25.0, v1.0.0, v1.5.0, v1.9.0):
 * - both `generation_batch_size` and `steps_per_generation` are set (grpo_config.py:514@v0.18.0, :1094@v1.9.0);
 * - `generation_batch_size` is not a multiple of the global batch: from v0.20.0 `per_device_train_batch_size` ×
 *   processes (grpo_config.py:588@v0.20.0, :1084@v1.9.0); at v0.18.0–v0.19.x an operator-precedence slip makes it
 *   `per_device_train_batch_size` alone (`g % p * n`, grpo_config.py:523@v0.18.0, :547@v0.19.0);
 * - the generation batch is not a multiple of `num_generations` (grpo_config.py:603@v0.20.0, :1110@v1.9.0; at
 *   v0.18.0–v0.19.x the same test as "not among the divisors", :537-546@v0.18.0), or `num_generations` < 2.
 * Before v0.18.0 the checks are in GRPOTrainer (not read: silent at such a pin). Run at TRL 0.18.0 and 1.9.0 (oracle
 * corner cases). A check that fails for every number of processes rests on the TRL version only (an error with a
 * pin); one that depends on it is an error when the world size is known (`--world-size`, the accelerate config's
 * `num_processes`), else a warning naming the world sizes that pass ("unless the world size is a multiple of 7").
 * With evaluation on (`eval_strategy` other than `no`), the global eval batch (`per_device_eval_batch_size` ×
 * processes) must be a multiple of `num_generations` (`num_generations_eval` from v1.0.0): from v0.23.0 before the
 * generation checks (grpo_config.py:672@v0.23.0, :1104@v1.9.0), at v0.18.0–v0.19.x after them (:550-558@v0.18.0),
 * not at v0.20.0–v0.21.0 (v0.22.x not read). Applies to GRPO files: the file's path or the launch line's script
 * names `grpo`.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { firstFitting } from "../../../diagnostics/build";
import { restingOn } from "../../../provenance";
import { versionAtLeast } from "../../../workspace/packagePin";
import type { TransformersRule } from "../context";
import { TA_DEFAULTS } from "../data";

/** GRPOConfig's checks live in `__post_init__` from this TRL release (before it, in GRPOTrainer). */
export const GRPO_CONFIG_CHECKS_SINCE = "0.18.0";
/** From this release the `generation_batch_size` check divides by the global batch (`g % (p * n)`), not by `p` alone. */
export const GRPO_GLOBAL_BATCH_FIX_SINCE = "0.20.0";
/** From this release the eval batch check runs (before the generation checks); at v0.18.0–v0.19.x it ran after them. */
export const GRPO_EVAL_CHECK_SINCE = "0.23.0";
/** GRPOConfig's `num_generations` default (grpo_config.py:475@v1.9.0; 8 at every tag read). */
const NUM_GENERATIONS_DEFAULT = 8;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export const grpoGenerationBatch: TransformersRule = {
  codes: ["transformers/grpo-generation-batch"],
  restsOn: ["version", "worldSize"],
  versionOf: "trl",
  loadFree: true,
  run({ v, dialect, versions, worldSize, doc, accel }) {
    const d = diagnostics("transformers");
    if (dialect !== "trl") return d.out;
    const grpo = /grpo/i.test(doc.uri) || (accel?.entry !== undefined && /grpo/i.test(`${accel.entry.path}\n${accel.entry.text.split("\n").find((l) => /\b(?:trl|accelerate|torchrun|python)\b/.test(l) && /grpo/i.test(l)) ?? ""}`));
    if (!grpo) return d.out;
    const trl = versions.trl.value;
    if (versions.pinned.trl && !versionAtLeast(trl, GRPO_CONFIG_CHECKS_SINCE)) return d.out;
    const fixed = versionAtLeast(trl, GRPO_GLOBAL_BATCH_FIX_SINCE);
    const p = v.int("per_device_train_batch_size") ?? TA_DEFAULTS.per_device_train_batch_size;
    const gas = v.int("gradient_accumulation_steps") ?? TA_DEFAULTS.gradient_accumulation_steps;
    const gbsE = v.entry("generation_batch_size");
    const spgE = v.entry("steps_per_generation");
    const ngE = v.entry("num_generations");
    const gbs = v.int("generation_batch_size");
    const spg = v.int("steps_per_generation");
    const ng = v.int("num_generations") ?? NUM_GENERATIONS_DEFAULT;
    if (p <= 0 || gas <= 0 || ng <= 0) return d.out;
    const at = `TRL ${trl}`;
    const where = (e: typeof ngE) => (e ?? ngE ?? gbsE ?? spgE ?? v.entry("per_device_train_batch_size"))?.keyRange;
    // Checks that fail for every number of processes: the TRL version alone.
    const always = (range: ReturnType<typeof where>, message: string, detail: string) => {
      d.add("grpo-generation-batch", "error", range, message, undefined, undefined, detail);
      restingOn(d.out[d.out.length - 1]!, ["version"]);
    };
    if (gbs !== undefined && spg !== undefined) {
      always(spgE!.keyRange, "`generation_batch_size` and `steps_per_generation` both set: GRPOConfig raises ValueError", `GRPOConfig.__post_init__ raises ValueError "'generation_batch_size' and 'steps_per_generation' can not be both configured at the same time" (${at}; ${versions.trl.detail}). Keep one.`);
      return d.out;
    }
    const n = worldSize?.value;
    if (gbs !== undefined) {
      const bad = gbs % p !== 0 ? true : fixed && n !== undefined ? gbs % (p * n) !== 0 : false;
      if (bad) {
        const msg = `generation_batch_size (${gbs}) must be divisible by the global batch size (${p}${n !== undefined ? ` × ${n}` : " × processes"})`;
        if (gbs % p !== 0) always(gbsE!.keyRange, `GRPOConfig raises: ${msg}`, `GRPOConfig.__post_init__ raises ValueError "${msg.replace(/ × /, " * ")}." (${at}; ${versions.trl.detail}): ${gbs} is not a multiple of \`per_device_train_batch_size\` ${p}, whatever the number of processes.`);
        else d.add("grpo-generation-batch", "error", gbsE!.keyRange, `GRPOConfig raises: generation_batch_size (${gbs}) must be divisible by the global batch size (${p * n!})`, undefined, undefined, `GRPOConfig.__post_init__ (from TRL ${GRPO_GLOBAL_BATCH_FIX_SINCE}; ${at}, ${versions.trl.detail}) divides \`generation_batch_size\` by \`per_device_train_batch_size\` × processes = ${p} × ${n} (${worldSize!.detail}).`);
        return d.out;
      }
    }
    // The eval batch check (when evaluation runs: `eval_strategy` other than "no", which also sets `do_eval`,
    // training_args.py:1571-1572@5.24.0): from v0.23.0 before the generation checks (grpo_config.py:672@v0.23.0,
    // :1104@v1.9.0, with `num_generations_eval` from v1.0.0); at v0.18.0–v0.19.x after them (:550-558@v0.18.0); not
    // at v0.20.0–v0.21.0 (v0.22.x not read: nothing said there).
    const evalCheck = (): boolean => {
      const es = v.str("eval_strategy") ?? v.str("evaluation_strategy");
      if (!es || es === "no") return false;
      const early = versionAtLeast(trl, GRPO_EVAL_CHECK_SINCE);
      if (!early && (fixed || !versionAtLeast(trl, GRPO_CONFIG_CHECKS_SINCE))) return false;
      if (!versions.pinned.trl && !early) return false;
      const pe = v.int("per_device_eval_batch_size") ?? TA_DEFAULTS.per_device_train_batch_size;
      const nge = (versionAtLeast(trl, "1.0.0") ? v.int("num_generations_eval") : undefined) ?? ng;
      if (pe <= 0 || nge < 2) return false;
      const me = nge / gcd(nge, pe);
      if (me === 1 || (n !== undefined && n % me === 0)) return false;
      const e = v.entry("per_device_eval_batch_size") ?? ngE ?? v.entry("eval_strategy") ?? v.entry("evaluation_strategy");
      const text = early ? `the global eval batch size (${pe} * ${n ?? "N"}) must be divisible by the number of generations${versionAtLeast(trl, "1.0.0") ? " used for evaluation" : ""} (${nge})` : `the global eval batch size (${n ?? "N"} x ${pe}) must be evenly divisible by the number of generations per prompt (${nge})`;
      if (n !== undefined) {
        d.add("grpo-generation-batch", "error", e?.keyRange, firstFitting([`GRPOConfig raises: ${text}`, `GRPOConfig raises: the global eval batch (${pe * n}) must be divisible by ${nge} generations`]), undefined, undefined, `With evaluation on (\`eval_strategy\`), GRPOConfig.__post_init__ raises ValueError: ${text} (${at}; ${versions.trl.detail}; ${n} processes: ${worldSize!.detail}). It passes when the number of processes is a multiple of ${me}.`);
        restingOn(d.out[d.out.length - 1]!, ["version", "worldSize"]);
      } else {
        d.add("grpo-generation-batch", "warning", e?.keyRange, firstFitting([`GRPOConfig raises unless the world size is a multiple of ${me} (eval: ${nge} generations must divide ${pe} × processes)`, `GRPOConfig raises unless the world size is a multiple of ${me} (eval batch)`]), undefined, undefined, `With evaluation on (\`eval_strategy\`), GRPOConfig.__post_init__ raises ValueError: ${text}, unless N (the number of processes) is a multiple of ${me} (${at}; ${versions.trl.detail}). No world size is known here (set \`--world-size\` or name the accelerate config).`);
        restingOn(d.out[d.out.length - 1]!, ["version"]);
      }
      return true;
    };
    if (versionAtLeast(trl, GRPO_EVAL_CHECK_SINCE) && evalCheck()) return d.out;
    if (ng < 2) {
      always(ngE?.keyRange, `\`num_generations: ${ng}\`: GRPO needs at least 2 generations per prompt (GRPOConfig raises ValueError)`, `GRPOConfig.__post_init__ raises ValueError "GRPO requires at least 2 generations per prompt to calculate the advantages" (${at}; ${versions.trl.detail}).`);
      return d.out;
    }
    const words = (g: number) => (fixed ? `generation_batch_size (${g}) must be divisible by num_generations (${ng})` : `the effective train batch size (${g}) must be evenly divisible by the number of generations per prompt (${ng})`);
    if (gbs !== undefined) {
      if (gbs % ng !== 0) always(ngE?.keyRange ?? gbsE!.keyRange, `GRPOConfig raises: ${words(gbs)}`, `GRPOConfig.__post_init__ raises ValueError: ${words(gbs)} (${at}; ${versions.trl.detail}), whatever the number of processes.`);
      else if (!versionAtLeast(trl, GRPO_EVAL_CHECK_SINCE)) evalCheck();
      return d.out;
    }
    // The generation batch is p × processes × steps: divisible by num_generations iff the processes are a multiple of m.
    const steps = spg ?? gas;
    const per = p * steps;
    const m = ng / gcd(ng, per);
    if (m === 1 || (n !== undefined && n % m === 0)) {
      if (!versionAtLeast(trl, GRPO_EVAL_CHECK_SINCE)) evalCheck();
      return d.out;
    }
    const stepsWhy = spg !== undefined ? "`steps_per_generation`" : "`gradient_accumulation_steps` (the default `steps_per_generation`)";
    if (n !== undefined) {
      d.add("grpo-generation-batch", "error", ngE?.keyRange ?? where(undefined), `GRPOConfig raises: ${words(per * n)}`, undefined, undefined, `The generation batch is \`per_device_train_batch_size\` ${p} × ${n} processes (${worldSize!.detail}) × ${stepsWhy} ${steps} = ${per * n}, not a multiple of \`num_generations\` ${ng}: GRPOConfig.__post_init__ raises ValueError (${at}; ${versions.trl.detail}). It passes when the number of processes is a multiple of ${m}.`);
      restingOn(d.out[d.out.length - 1]!, ["version", "worldSize"]);
      return d.out;
    }
    // The world size is unknown: whether it raises depends on it, so a warning that names the sizes that pass.
    d.add("grpo-generation-batch", "warning", ngE?.keyRange ?? where(undefined), firstFitting([`\`num_generations\` ${ng} must divide the generation batch ${per} × processes: GRPOConfig raises unless the world size is a multiple of ${m}`, `GRPOConfig raises unless the world size is a multiple of ${m} (\`num_generations\` ${ng} must divide ${per} × processes)`]), undefined, undefined, `The generation batch is \`per_device_train_batch_size\` ${p} × the number of processes × ${stepsWhy} ${steps}; GRPOConfig.__post_init__ raises ValueError "${fixed ? `generation_batch_size (${per} * N) must be divisible by num_generations (${ng})` : `The effective train batch size (N x ${p} x ${steps}) must be evenly divisible by the number of generations per prompt (${ng})`}" unless N is a multiple of ${m} (${at}; ${versions.trl.detail}). No world size is known here (set \`--world-size\` or name the accelerate config).`);
    restingOn(d.out[d.out.length - 1]!, ["version"]);
    return d.out;
  },
};

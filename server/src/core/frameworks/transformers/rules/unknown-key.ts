/**
 * transformers/unknown-key: A key the argument parser does not know (or not at the pinned transformers release).
 *
 * A key the argument parser does not know. LLaMA-Factory parses with allow_extra_keys=False
 * unless ALLOW_EXTRA_ARGS is set and raises ValueError "Some keys are not used by the HfArgumentParser"
 * (src/llamafactory/hparams/parser.py:103-112, 261-262@v0.9.5); TRL's loader (TrlParser) raises "Unknown arguments
 * from config file" from TRL 0.19.0 (trl/scripts/utils.py:351-354@v1.9.0) and silently drops the key before it
 * (data.ts TRL_UNKNOWN_KEY_RAISES_SINCE): the message names the outcome at the pinned TRL, or both when TRL is not
 * pinned (either way the value does not reach the run). A script may add its own dataclasses (open-r1 does),
 * so for TRL and plain argument files only a near miss (edit distance ≤ 2) of a known key is reported. With transformers pinned,
 * a TrainingArguments key that the release at or below the pin lacks is reported with the releases
 * that have it (keys.ts, every release from 4.36.0). With nothing pinned the version is unknown: a key the newest
 * release read rejects (`overwrite_output_dir` from 5.0.0, `warmup_ratio` from 5.15.0) is a warning naming the first
 * release that rejects it, never an error (older releases take it); likewise a TRL field the newest sampled TRL tag
 * lacks (`max_prompt_length` after v0.25.0). A field of the project's own argument dataclasses
 * (argClasses.ts: the classes a workspace script hands to HfArgumentParser / TrlParser) is known.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import { editDistance, nearest } from "../../common/wording";
import type { TransformersRule } from "../context";
import { projectArgs } from "../argClasses";
import { knownKeys, LLAMAFACTORY_ARGS, SEQ2SEQ_ARGS, TA_RELEASES, taAbsentSince, taKeyAtIndex, taReleaseIndex, taSpans, TRL_ARGS, TRL_SAMPLED, trlSampledFor, TRL_UNKNOWN_KEY_RAISES_SINCE } from "../data";
import { firstFitting } from "../../../diagnostics/build";
import { beyondBound, packageUpperBound, versionAtLeast } from "../../../workspace/packagePin";
import type { Versions } from "../context";
import { llamaFactoryTransformersCap, type TransformersCap } from "../llamafactoryBounds";

/** What TRL's loader does with a key no dataclass declares, at the pinned TRL or, unpinned, at every release. */
function trlUnknownOutcome(versions: Versions): { short: string; long: string } {
  const since = TRL_UNKNOWN_KEY_RAISES_SINCE;
  if (!versions.pinned.trl) return { short: `ignored before TRL ${since}, ValueError from it`, long: `TRL's loader (TrlParser) drops it without a word before TRL ${since} and raises ValueError "Unknown arguments from config file" from ${since}; TRL is not pinned (${versions.trl.detail}), so either way the value does not reach the run.` };
  const v = versions.trl.value;
  return versionAtLeast(v, since)
    ? { short: `ValueError at TRL ${v}`, long: `TRL's loader (TrlParser) raises ValueError "Unknown arguments from config file" at TRL ${v} (from ${since}; ${versions.trl.detail}).` }
    : { short: `silently ignored at TRL ${v}`, long: `TRL's loader (TrlParser) drops it without a word at TRL ${v} (it raises only from ${since}; ${versions.trl.detail}): the value does not reach the run.` };
}

export const unknownKey: TransformersRule = {
  codes: ["transformers/unknown-key"],
  // Only the removed-key check rests on the transformers pin (it runs only with one); unknown keys on the file alone.
  restsOn: [],
  run({ v, dialect, versions, env }) {
    const d = diagnostics("transformers");
    // The project's own argument dataclasses (HfArgumentParser / TrlParser in a workspace script), read once and only
    // when a key is not one of the framework's.
    let project: ReturnType<typeof projectArgs> | null = null;
    const projectHas = (k: string) => (project ??= projectArgs(env) ?? undefined)?.fields.has(k) === true;
    const known = knownKeys(dialect);
    const all = [...known];
    const owner = dialect === "llamafactory" ? "LLaMA-Factory" : dialect === "trl" ? "TRL's configs and TrainingArguments" : "TrainingArguments";
    // The release whose table applies: the pin's, else the newest read (what an unpinned install gets today).
    const at = taReleaseIndex(versions.transformers.value);
    // Unpinned, a LLaMA-Factory file runs only with the transformers releases LLaMA-Factory's own check accepts.
    let cap: TransformersCap | undefined | null = null;
    // Read once, when a key needs it (false: no bound in the workspace).
    let taBound: ReturnType<typeof packageUpperBound> | false | undefined;
    let trlBound: ReturnType<typeof packageUpperBound> | false | undefined;
    const lfCap = () => (cap === null ? (cap = dialect === "llamafactory" ? llamaFactoryTransformersCap(env, versions) : undefined) : cap);
    const megatronStyle = v.childKeys().some((k) => /^(?:tensor|pipeline|expert|virtual_pipeline)_model_parallel_size$/.test(k));
    for (const k of v.childKeys()) {
      const e = v.entry(k);
      const range = e?.keyRange ?? v.keyRange(k);
      if (!range) continue;
      if (known.has(k)) {
        const onlyTA = !(k in TRL_ARGS && dialect === "trl") && !(dialect === "llamafactory" && (k in LLAMAFACTORY_ARGS || SEQ2SEQ_ARGS.includes(k)));
        // A field the project's own argument dataclasses declare is theirs at every release.
        if (at !== undefined && (onlyTA || (dialect === "trl" && k in TRL_ARGS && k !== "torch_dtype")) && projectHas(k)) continue;
        if (at !== undefined && onlyTA && taKeyAtIndex(k, at) === false) {
          const when = `TrainingArguments declares \`${k}\` at ${taSpans(k)} (every release from ${TA_RELEASES[0]} read), not at ${TA_RELEASES[at]}`;
          if (versions.pinned.transformers) d.add("unknown-key", "warning", range, `\`${k}\` is not a TrainingArguments key at transformers ${versions.transformers.value}: the parser rejects it`, undefined, undefined, `${when}; ${versions.transformers.detail}. HfArgumentParser rejects keys its dataclasses do not declare.`);
          else {
            // No pin: the version is unknown. The newest release rejects the key and older ones take it, so this holds
            // for some candidate releases only: a warning naming the releases that reject it, never an error.
            const since = TA_RELEASES[taAbsentSince(k, at)]!;
            // Every release LLaMA-Factory lets run still takes the key: no candidate rejects it.
            const bound = lfCap();
            if (bound && !versionAtLeast(bound.max, since)) continue;
            // A range in the workspace's requirements (`transformers<5.0.0`) stops the candidates before `since`.
            const taRange = (taBound ??= packageUpperBound(env, "transformers") ?? false);
            if (taRange && beyondBound(since, taRange)) continue;
            const commit = versions.commits?.transformers;
            if (commit) d.add("unknown-key", "information", range, firstFitting([`\`${k}\` is rejected from transformers ${since}; transformers is pinned to commit ${commit}, release not known`, `\`${k}\` is rejected from transformers ${since}; pinned to a commit, release not known`]), undefined, undefined, `${when}. ${versions.transformers.detail}: a fresh install gets that commit, whose release is not known; the key is rejected from ${since} on.`);
            else d.add("unknown-key", "warning", range, firstFitting([`\`${k}\` is rejected from transformers ${since} (not a TrainingArguments key there); nothing pins the version`, `\`${k}\` is rejected from transformers ${since}; nothing pins the version`]), undefined, undefined, `${when}. ${versions.transformers.detail}: HfArgumentParser raises ValueError "Some keys are not used by the HfArgumentParser" from ${since} on and accepts the key before it. Pin transformers, or drop the key.`);
          }
        }
        if (at !== undefined && dialect === "trl" && k in TRL_ARGS && k !== "torch_dtype" && taKeyAtIndex(k, at) !== true) {
          // A TRL field the TRL release lacks (and TrainingArguments does not declare): TrlParser rejects it.
          const tag = trlSampledFor(versions.trl.value);
          const r = TRL_ARGS[k]!;
          if (!versionAtLeast(r.last.slice(1), tag.slice(1))) {
            const newer = TRL_SAMPLED.filter((t) => versionAtLeast(t.slice(1), r.last.slice(1)) && t !== r.last);
            const gone = newer[0] ?? tag;
            const long = `TRL's ${r.classes.map((c) => `\`${c}\``).join(", ")} declare \`${k}\` in the sampled tags ${r.first} to ${r.last}, not at ${newer.join(", ")} (${TRL_SAMPLED.join(", ")} read); TrlParser raises ValueError "Unknown arguments from config file" for it from ${TRL_UNKNOWN_KEY_RAISES_SINCE}.`;
            if (versions.pinned.trl) d.add("unknown-key", "warning", range, `\`${k}\` is not a TRL ${versions.trl.value} argument: the parser rejects it`, undefined, undefined, `${long} ${versions.trl.detail}.`);
            else {
              const trlRange = (trlBound ??= packageUpperBound(env, "trl") ?? false);
              const commit = versions.commits?.trl;
              if (commit && (!trlRange || !beyondBound(gone.slice(1), trlRange))) d.add("unknown-key", "information", range, firstFitting([`\`${k}\` is rejected from TRL ${gone.slice(1)}; TRL is pinned to commit ${commit}, release not known`, `\`${k}\` is rejected from TRL ${gone.slice(1)}; pinned to a commit, release not known`]), undefined, undefined, `${long} ${versions.trl.detail}: a fresh install gets that commit, whose release is not known; releases up to ${r.last} accept it.`);
              else if (!trlRange || !beyondBound(gone.slice(1), trlRange)) d.add("unknown-key", "warning", range, firstFitting([`\`${k}\` is rejected from TRL ${gone.slice(1)} (last declared at ${r.last}); nothing pins the version`, `\`${k}\` is rejected from TRL ${gone.slice(1)}; nothing pins the version`]), undefined, undefined, `${long} ${versions.trl.detail}: releases up to ${r.last} accept it. Pin TRL, or drop the key.`);
            }
          }
        }
        continue;
      }
      if (projectHas(k)) continue;
      // The script's parser names a class the workspace does not hold (a variable, a package not here): which keys it
      // accepts is not known, so an unknown key is only information, led by that (named assumption `project-parser`).
      const unresolved = (project ??= projectArgs(env) ?? undefined)?.unresolved;
      if (unresolved && dialect !== "llamafactory") {
        d.add("unknown-key", "information", range, `Unknown key \`${k}\` unless the project's parser class \`${unresolved}\` declares it (not found in the workspace)`, undefined, undefined, `\`${k}\` is not a field of ${owner}; ${project!.where} parses with \`${unresolved}\`, which is not in the workspace, so whether it declares \`${k}\` is not known.`);
        continue;
      }
      // A vendored LLaMA-Factory whose parser adds classes of its own (a fork's PEFT arguments built on another
      // package's config classes): whether they declare the key is not known here (named assumption `project-parser`).
      const extra = dialect === "llamafactory" ? project?.vendoredExtra : undefined;
      if (extra) {
        d.add("unknown-key", "information", range, firstFitting([`Unknown key \`${k}\` unless the fork's parser (\`HfArgumentParser(${extra})\`) accepts it`, `Unknown key \`${k}\` unless the fork's own parser classes accept it`]), undefined, undefined, `\`${k}\` is not a field of ${owner}; the workspace's LLaMA-Factory hands HfArgumentParser \`${extra}\` (hparams/parser.py), classes whose fields are not all in the workspace.`);
        continue;
      }
      // LLaMA-Factory's Megatron path (v0.9.4 on: `_TRAIN_MCA_ARGS` with mcore_adapter's McaTrainingArguments, taken
      // when USE_MCA=1) accepts Megatron's keys; a file that sets Megatron parallel sizes is written for it, and which
      // keys McaTrainingArguments declares is not in the workspace (hparams/parser.py:56-65@v0.9.4).
      const mca = dialect === "llamafactory" && megatronStyle && (project?.vendoredMca ?? versionAtLeast(versions.llamafactory.value, "0.9.4"));
      if (mca) {
        d.add("unknown-key", "information", range, `Unknown key \`${k}\` unless launched with USE_MCA=1 (mcore_adapter's McaTrainingArguments)`, undefined, undefined, `\`${k}\` is not a field of ${owner}; this file sets Megatron parallel sizes, which LLaMA-Factory reads on its Megatron path (USE_MCA=1, mcore_adapter's McaTrainingArguments, hparams/parser.py from v0.9.4); without USE_MCA it raises ValueError "Some keys are not used by the HfArgumentParser".`);
        continue;
      }
      const near = nearest(k, all);
      // A list or mapping under the near name would change its type (`dataset_configs: [default]` → the string field
      // `dataset_config`): no rename offered then.
      const shaped = e !== undefined && (e.value.kind === "array" || e.value.kind === "table");
      const fixes = near && !shaped ? [fix(`Rename to \`${near}\``, [{ range, newText: near }], true)] : undefined;
      if (dialect === "llamafactory") {
        d.add("unknown-key", "warning", range, `Unknown key \`${k}\`${near ? ` (did you mean \`${near}\`?)` : ""}: LLaMA-Factory rejects it unless ALLOW_EXTRA_ARGS is set`, fixes, undefined, `\`${k}\` is not a field of ${owner} at the releases read (v0.9.3, v0.9.5, transformers 4.40–5.24). LLaMA-Factory parses with allow_extra_keys=False and raises ValueError "Some keys are not used by the HfArgumentParser".`);
      } else if (near && near !== k && editDistance(k.toLowerCase(), near.toLowerCase()) <= 2) {
        const trl = dialect === "trl" ? trlUnknownOutcome(versions) : undefined;
        d.add("unknown-key", "warning", range, `Unknown key \`${k}\`: did you mean \`${near}\`?${trl ? ` (${trl.short})` : ""}`, fixes, undefined, `\`${k}\` is not a field of ${owner} at the releases read. ${trl ? `${trl.long} A script's own dataclass may declare it (none found in the workspace).` : "HfArgumentParser rejects keys its dataclasses do not declare."}`);
      }
    }
    return d.out;
  },
};

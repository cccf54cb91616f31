/**
 * The launcher as an unknown fact (issue #31, "a link that is not found"): when neither this file (`deepspeed`,
 * `fsdp`) nor a directive, TRL's `accelerate_config` key or a launch line names the launcher, the file may run
 * under any launcher the chain models. A conclusion that holds for every candidate rests on no guess; one that
 * differs is shown by launcher (resolve.ts `byLauncher`) and a finding true under some candidates only is not
 * emitted (analyzer.ts `everyLauncher`).
 *
 * The candidates are the branches of the modelled chain, with this file's own precision flags as the Trainer and
 * accelerate fill them (never a table of answers): accelerate's `distributed_type` NO / MULTI_GPU (the plain/DDP
 * branch of resolve.ts), DEEPSPEED with the config accelerate builds from `deepspeed_config.zero_stage` 1, 2 or 3
 * (context.ts `acceleratorBuiltDs`: bf16/fp16 `"auto"`, filled from `bf16`/`fp16` by set_mixed_precision and
 * the Trainer; stage 0, DeepSpeed without ZeRO, is left out: accelerate's DeepSpeed configs choose a stage), and FSDP with `fsdp_config.fsdp_version` 1 or 2 (accelerate's FSDP plugin; the version changes the
 * upcast at accelerate 1.13.0, data.ts `fsdp2UpcastNoOp`).
 */
import type { TransformersContext } from "./context";
import { acceleratorBuiltDs } from "./context";

/** One launcher this file may run under, with the context the rules and the resolution read under it. */
export interface LauncherCandidate {
  /** "single GPU/DDP", "DeepSpeed ZeRO-3", "FSDP2". */
  name: string;
  ctx: TransformersContext;
}

/**
 * True when nothing names the launcher (a named-but-broken link included), or a launch line runs `accelerate
 * launch` / `trl` with no config file and no flag that says the distributed type (accelerate's default config on
 * the machine decides): its value is unknown. A LLaMA-Factory file that does not train (no `do_train: true`: predict, eval, export) is left as it was: the model is loaded
 * frozen (model/loader.py `load_model(…, is_trainable)`@v0.9.5) and the training launchers' master weights and
 * gradient reduction do not apply.
 */
export function launcherUnknown(ctx: TransformersContext): boolean {
  if (ctx.candidate || (ctx.dialect === "llamafactory" && ctx.v.bool("do_train") !== true)) return false;
  return ctx.launcherFrom === "assumed" || (ctx.launcherFrom === "accelerate" && !!ctx.accel?.guessed);
}

/** Why the launcher is unknown, to lead the rows that differ: not found, or `accelerate launch` with no config file. */
export function unknownLauncherWhy(ctx: TransformersContext): string {
  return ctx.accel?.guessed && ctx.launcherFrom === "accelerate" ? "launcher unknown (accelerate's default config decides)" : "launcher not found";
}

export const ZERO_STAGES = [1, 2, 3] as const;
export const FSDP_VERSIONS = [1, 2] as const;

/** Every candidate launcher of a context whose launcher is unknown (the plain/DDP one first); [] when it is known. */
export function launcherCandidates(ctx: TransformersContext): LauncherCandidate[] {
  if (!launcherUnknown(ctx)) return [];
  const out: LauncherCandidate[] = [{ name: "single GPU/DDP", ctx: { ...ctx, launcher: "plain", candidate: "single GPU/DDP" } }];
  for (const stage of ZERO_STAGES) {
    const name = `DeepSpeed ZeRO-${stage}`;
    // No `deepspeed_config.gradient_accumulation_steps`: `"auto"`, filled by the Trainer from this file.
    const ds = acceleratorBuiltDs(stage, undefined, undefined, `the DeepSpeed ZeRO-${stage} config accelerate would build (launcher not found)`);
    out.push({ name, ctx: { ...ctx, launcher: "deepspeed", ds, dsSource: "launcher", dsRel: undefined, candidate: name } });
  }
  for (const ver of FSDP_VERSIONS) {
    const name = `FSDP${ver}`;
    out.push({ name, ctx: { ...ctx, launcher: "fsdp", fsdpVersion: { value: ver, source: "default", kind: "default", detail: `candidate launcher FSDP${ver} (launcher not found)` }, candidate: name } });
  }
  return out;
}

/**
 * Candidate names, compacted: "DeepSpeed ZeRO-1, DeepSpeed ZeRO-2, DeepSpeed ZeRO-3" → "DeepSpeed ZeRO-1/2/3",
 * "FSDP1, FSDP2" → "FSDP1/2", joined with commas and a final "and".
 */
export function candidateList(names: readonly string[]): string {
  const groups: { prefix: string; nums: string[] }[] = [];
  for (const n of names) {
    // The trailing digits ("ZeRO-3" → "ZeRO-", "3"), read without a regex.
    let cut = n.length;
    while (cut > 0 && n.charCodeAt(cut - 1) >= 48 && n.charCodeAt(cut - 1) <= 57) cut--;
    const num = cut < n.length ? n.slice(cut) : undefined;
    const prefix = n.slice(0, cut);
    const last = groups[groups.length - 1];
    if (num && last && last.prefix === prefix && last.nums.length) last.nums.push(num);
    else groups.push({ prefix: num ? prefix : n, nums: num ? [num] : [] });
  }
  const parts = groups.map((g) => (g.nums.length ? `${g.prefix}${g.nums.join("/")}` : g.prefix));
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

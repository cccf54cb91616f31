/**
 * Everything a Megatron-LM rule reads, computed once per document version: the flags of the launch command
 * that runs `pretrain_gpt.py` (bash arrays and variables expanded by parse/shell.ts, each flag keeping the
 * range it is written at), the world size from the launcher (`torchrun --nproc_per_node N --nnodes M`), and
 * the settings `validate_args` derives from the flags (megatron/training/arguments.py at core_v0.16.1):
 * `params_dtype` from --fp16/--bf16, and --bf16's implied fp32 gradient accumulation and all-reduce
 * (`accumulate_allreduce_grads_in_fp32 = True` unless --grad-reduce-in-bf16 or --main-grads-dtype bf16).
 */
import type { AnalysisEnv, AnalysisSettings, Sourced } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import type { DType, Range } from "../../model/types";
import { shellScript, type ShellCommand, type ShellWord } from "../../parse/shell";
import type { FactValue } from "../../provenance";
import { packagePin } from "../../workspace/packagePin";

/** The newest megatron-core read (PyPI 0.16.1; its arguments.py from NVIDIA/Megatron-LM tag core_v0.16.1). */
export const MCORE_NEWEST = "0.16.1";

export interface Flag {
  name: string;
  /** The value word, or true for a switch. */
  value: string | true;
  /** The flag word's range (and the value's, for a flag with one). */
  range: Range;
  valueRange?: Range;
}

export interface MegatronContext {
  doc: ConfigDocument;
  settings: AnalysisSettings;
  env: AnalysisEnv;
  command: ShellCommand;
  script: string;
  flags: Map<string, Flag>;
  flag(name: string): Flag | undefined;
  /** An integer flag's value: the default when absent, undefined when written but not a number. */
  int(name: string, dflt: number): number | undefined;
  worldSize: Sourced<number> | undefined;
  version: { version: string; pinned: boolean; detail: string };
  versionFact: FactValue;
  paramsDtype: DType;
  /** `accumulate_allreduce_grads_in_fp32` after validate_args, and why. */
  fp32Grads: { value: boolean; why: string };
  unknownArgs: boolean;
  /**
   * A flag's absence proves nothing: arguments only known at run time (`$@`, an array from a sourced file), or
   * slime's entry point (its own argument defaults and model scripts it sources). Rules concluding from a
   * missing flag are silent then.
   */
  absentUnknown: boolean;
}

/** `torchrun … pretrain_gpt.py …` / `python pretrain_gpt.py …`: the word index of the training script. */
export function megatronCommand(doc: ConfigDocument): { command: ShellCommand; at: number; script: string; slime?: boolean } | undefined {
  if (doc.format !== "shell") return undefined;
  for (const c of shellScript(doc).commands) {
    const w0 = c.words[0]?.text ?? "";
    // Megatron-DeepSpeed also has a pretrain_gpt.py: its `deepspeed` launcher and `--deepspeed` flags are not this framework.
    if (!/(?:^|\/)(?:torchrun|python[0-9.]*)$/.test(w0) && w0 !== "srun" && w0 !== "uv") continue;
    if (c.words.some((w) => /^--deepspeed(?:_config|-config)?(?:=|$)/.test(w.text))) continue;
    for (let i = 1; i < c.words.length && i < 128; i++) {
      const t = c.words[i]!.text;
      if (/(?:^|\/)pretrain_gpt\.py$/.test(t)) return { command: c, at: i, script: t };
      // Another script (another pretrain_*.py, a train.py): not Megatron-LM's GPT entry point.
      if (/\.py$/.test(t)) break;
    }
  }
  // slime (THUDM/slime) passes Megatron-LM's own flags to its `train.py` / `train_async.py`, whose Megatron
  // backend parses them with Megatron's argument parser (often behind `ray job submit … -- python3 train.py`).
  // Only with a flag only slime has (`--actor-num-gpus-per-node`, `--rollout-num-gpus…`), so another train.py is
  // not taken for it.
  for (const c of shellScript(doc).commands) {
    if (!c.words.some((w) => /^--(?:actor-num-gpus-per-node|actor-num-nodes|rollout-num-gpus(?:-per-engine)?)(?:=|$)/.test(w.text))) continue;
    for (let i = 1; i < c.words.length && i < 128; i++) {
      if (!/(?:^|\/)python[0-9.]*$/.test(c.words[i - 1]!.text)) continue;
      const t = c.words[i]!.text;
      if (/(?:^|\/)train(?:_async)?\.py$/.test(t)) return { command: c, at: i, script: t, slime: true };
    }
  }
  return undefined;
}

function launcherWorld(words: readonly ShellWord[], at: number): { value: number; detail: string; line: number; nodesVar?: string } | undefined {
  let nproc: number | undefined;
  let nnodes = 1;
  let nodesText = "1 (default)";
  let nodesVar: string | undefined;
  const pre = words.slice(0, at);
  if (!/torchrun$/.test(pre[0]?.text ?? "") && !pre.some((w) => w.text === "torch.distributed.run" || w.text === "torch.distributed.launch")) return undefined;
  for (let i = 0; i < pre.length; i++) {
    const m = /^--(nproc[_-]per[_-]node|nnodes)(?:=(.*))?$/.exec(pre[i]!.text);
    if (!m) continue;
    const v = m[2] ?? pre[i + 1]?.text ?? "";
    if (m[1] === "nnodes") {
      const r = /^(?:\d+:)?(\d+)$/.exec(v);
      if (!r) return undefined;
      nnodes = Number(r[1]);
      nodesText = v;
      // The value word expanded from a variable assigned earlier (`NUM_NODES=1` … `--nnodes $NUM_NODES`): its
      // range is the assignment's, before the flag word.
      const valueWord = m[2] === undefined ? pre[i + 1] : undefined;
      if (valueWord && valueWord.start < pre[i]!.start) nodesVar = `line ${valueWord.range.start.line + 1}`;
    } else {
      if (!/^\d+$/.test(v)) return undefined;
      nproc = Number(v);
    }
  }
  if (!nproc) return undefined;
  return { value: nproc * nnodes, detail: `torchrun --nproc_per_node ${nproc} --nnodes ${nodesText}`, line: pre[0]!.range.start.line, nodesVar };
}

export function megatronContext(doc: ConfigDocument, settings: AnalysisSettings, env: AnalysisEnv): MegatronContext {
  const found = megatronCommand(doc)!;
  const words = found.command.words;
  const flags = new Map<string, Flag>();
  let unknownArgs = false;
  for (let i = found.at + 1; i < words.length; i++) {
    const w = words[i]!;
    if (/^\$\{?[@*]|^\$\{/.test(w.text)) unknownArgs = true;
    const m = /^--([A-Za-z0-9][\w-]*)(?:=(.*))?$/.exec(w.text);
    if (!m) continue;
    const name = m[1]!;
    const f: Flag = { name, value: true, range: w.range };
    if (m[2] !== undefined) {
      f.value = m[2];
      f.valueRange = w.range;
    } else {
      const next = words[i + 1];
      if (next && !/^--[A-Za-z]/.test(next.text)) {
        f.value = next.text;
        f.valueRange = next.range;
        i++;
      }
    }
    flags.set(name, f);
  }
  const flag = (n: string) => flags.get(n);
  const int = (n: string, dflt: number): number | undefined => {
    const f = flags.get(n);
    if (!f) return dflt;
    return typeof f.value === "string" && /^\d+$/.test(f.value) ? Number(f.value) : undefined;
  };
  let worldSize: Sourced<number> | undefined;
  if (settings.worldSize && settings.worldSize > 0) worldSize = { value: settings.worldSize, source: "setting", kind: settings.origin === "cli" ? "cli" : "setting", detail: "from the precisionLens.worldSize setting / --world-size" };
  else {
    const l = launcherWorld(words, found.at);
    // A node count from a script variable is the script's placeholder for the cluster (the examples say "Change
    // for multinode config"): the world size it gives is inferred, so a conclusion resting on it is capped.
    if (l) worldSize = l.nodesVar ? { value: l.value, source: "run-script", kind: "inferred", detail: `${l.detail} on line ${l.line + 1}, the node count from the variable set on ${l.nodesVar} (a per-cluster value)` } : { value: l.value, source: "run-script", kind: "file", detail: `${l.detail} on line ${l.line + 1}` };
  }
  const pin = packagePin(env, "megatron-core");
  const version = pin ? { version: pin.version, pinned: true, detail: `megatron-core ${pin.version} pinned in ${pin.where.replace(/: megatron-core .*$/, "")}` } : { version: MCORE_NEWEST, pinned: false, detail: `no megatron-core pin found in the workspace; assuming the newest (${MCORE_NEWEST})` };
  const versionFact: FactValue = pin ? { value: `megatron-core ${pin.version}`, kind: "workspace-pin", detail: version.detail } : { value: `megatron-core ${MCORE_NEWEST}`, kind: "default", detail: "the newest release" };
  const bf16 = !!flag("bf16");
  const fp16 = !!flag("fp16");
  const paramsDtype: DType = fp16 ? "float16" : bf16 ? "bfloat16" : "float32";
  const mainGrads = flag("main-grads-dtype")?.value ?? "fp32";
  let fp32Grads: { value: boolean; why: string };
  if (flag("accumulate-allreduce-grads-in-fp32")) fp32Grads = { value: true, why: "`--accumulate-allreduce-grads-in-fp32`" };
  else if (bf16 && flag("grad-reduce-in-bf16")) fp32Grads = { value: false, why: "`--grad-reduce-in-bf16` turns off --bf16's fp32 accumulation" };
  else if (bf16 && mainGrads === "fp32") fp32Grads = { value: true, why: "implied by `--bf16` (validate_args: bfloat16 accumulates and all-reduces gradients in fp32)" };
  else if (bf16) fp32Grads = { value: false, why: `\`--main-grads-dtype ${String(mainGrads)}\`` };
  else fp32Grads = { value: false, why: fp16 ? "`--fp16` without `--accumulate-allreduce-grads-in-fp32`: the gradient buffer is fp16" : "fp32 parameters: gradients are fp32" };
  return { doc, settings, env, command: found.command, script: found.script, flags, flag, int, worldSize, version, versionFact, paramsDtype, fp32Grads, unknownArgs, absentUnknown: unknownArgs || found.slime === true };
}

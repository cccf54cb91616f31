/**
 * Megatron-LM detection (conservative): a run script whose launch command (`torchrun`, `python`, `srun`) runs
 * Megatron-LM's `pretrain_gpt.py`. Another training script (another `pretrain_*.py`, a `train.py`), a
 * `deepspeed` launcher or `--deepspeed` flags (Megatron-DeepSpeed) get nothing. slime's `train.py` /
 * `train_async.py` with a slime-only flag (`--actor-num-gpus-per-node`, …) is read as Megatron-LM flags.
 *
 * A script without DeepSpeed flags in a Megatron-DeepSpeed checkout (its `examples/` keep Megatron-LM's scripts)
 * runs that fork's `pretrain_gpt.py`, not Megatron-LM's: the workspace's own code says so (`megatronDeepSpeed`),
 * and the file is declined (no findings), as the decoys ask.
 */
import type { AnalysisEnv } from "../../analysis";
import type { ConfigDocument } from "../../model/document";
import { ancestorDirs, displayPath, join } from "../../workspace/paths";
import { launchScripts } from "../../workspace/worldSize";
import { megatronCommand } from "./context";

export function detectMegatron(doc: ConfigDocument): string | undefined {
  const c = megatronCommand(doc);
  if (!c) return undefined;
  return c.slime ? `runs slime's \`${c.script}\` on line ${c.command.line + 1} (slime's Megatron backend parses its Megatron-LM flags)` : `runs \`${c.script}\` on line ${c.command.line + 1} (a Megatron-LM launch command; its flags are the config)`;
}

const IMPORTS_DEEPSPEED = /^[ \t]*(?:import|from)[ \t]+deepspeed\b/m;
const DEEPSPEED_LAUNCH = /(?:^|[\s;&|(])deepspeed[ \t][^\n]*pretrain_gpt\.py/m;
const DEEPSPEED_FLAG = /--deepspeed(?:_config)?\b/;

/**
 * The workspace's evidence that `pretrain_gpt.py` is Megatron-DeepSpeed's: a `pretrain_gpt.py` beside the script or
 * above it that imports deepspeed, or another launch script there that runs `pretrain_gpt.py` with the `deepspeed`
 * launcher or `--deepspeed` flags. Undefined without such evidence (an upstream Megatron-LM checkout has neither).
 */
export function megatronDeepSpeed(doc: ConfigDocument, env: AnalysisEnv): string | undefined {
  const c = megatronCommand(doc);
  if (!c || c.slime || !env.documentPath) return undefined;
  for (const dir of ancestorDirs(env)) {
    const path = join(dir, "pretrain_gpt.py");
    const text = env.readFile(path);
    if (text !== undefined && IMPORTS_DEEPSPEED.test(text)) return `${displayPath(path, env)} imports deepspeed: this is Megatron-DeepSpeed, not Megatron-LM (not checked)`;
  }
  for (const s of launchScripts(env, "pretrain_gpt.py")) {
    if (s.path === env.documentPath) continue;
    if (DEEPSPEED_LAUNCH.test(s.text) || DEEPSPEED_FLAG.test(s.text)) return `${displayPath(s.path, env)} runs pretrain_gpt.py with DeepSpeed: this checkout is Megatron-DeepSpeed, not Megatron-LM (not checked)`;
  }
  return undefined;
}

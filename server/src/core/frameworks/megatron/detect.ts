/**
 * Megatron-LM detection (conservative): a run script whose launch command (`torchrun`, `python`, `srun`) runs
 * Megatron-LM's `pretrain_gpt.py`. Another training script (another `pretrain_*.py`, a `train.py`), a
 * `deepspeed` launcher or `--deepspeed` flags (Megatron-DeepSpeed) get nothing. slime's `train.py` /
 * `train_async.py` with a slime-only flag (`--actor-num-gpus-per-node`, …) is read as Megatron-LM flags.
 */
import type { ConfigDocument } from "../../model/document";
import { megatronCommand } from "./context";

export function detectMegatron(doc: ConfigDocument): string | undefined {
  const c = megatronCommand(doc);
  if (!c) return undefined;
  return c.slime ? `runs slime's \`${c.script}\` on line ${c.command.line + 1} (slime's Megatron backend parses its Megatron-LM flags)` : `runs \`${c.script}\` on line ${c.command.line + 1} (a Megatron-LM launch command; its flags are the config)`;
}

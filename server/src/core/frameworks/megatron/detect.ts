/**
 * Megatron-LM detection (conservative): a run script whose launch command (`torchrun`, `python`, `srun`) runs
 * Megatron-LM's `pretrain_gpt.py`. Another training script (another `pretrain_*.py`, a `train.py`), a
 * `deepspeed` launcher or `--deepspeed` flags (Megatron-DeepSpeed) get nothing.
 */
import type { ConfigDocument } from "../../model/document";
import { megatronCommand } from "./context";

export function detectMegatron(doc: ConfigDocument): string | undefined {
  const c = megatronCommand(doc);
  return c ? `runs \`${c.script}\` on line ${c.command.line + 1} (a Megatron-LM launch command; its flags are the config)` : undefined;
}

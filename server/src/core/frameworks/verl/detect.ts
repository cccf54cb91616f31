/**
 * verl detection (conservative: a Hydra YAML that is not a verl trainer config, or a script running anything
 * else, gets nothing): a run script whose command runs `verl.trainer.main_ppo` (`python3 -m …` or the file
 * path), or a YAML with verl's trainer shape: an `actor_rollout_ref` mapping holding `actor` or `rollout`,
 * beside `trainer`, `algorithm`, `critic` or `data`.
 */
import type { ConfigDocument } from "../../model/document";
import { View } from "../common/view";
import { verlCommand } from "./context";

export function detectVerl(doc: ConfigDocument): string | undefined {
  if (doc.format === "shell") {
    const c = verlCommand(doc);
    return c ? `runs \`${c.module}\` on line ${c.command.line + 1} (a verl launch command; its \`key=value\` arguments are Hydra overrides)` : undefined;
  }
  if (doc.format !== "yaml") return undefined;
  const v = new View(doc);
  if (!v.has("actor_rollout_ref") || !(v.has("actor_rollout_ref", "actor") || v.has("actor_rollout_ref", "rollout"))) return undefined;
  const beside = ["trainer", "algorithm", "critic", "data"].find((k) => v.has(k));
  return beside ? `has \`actor_rollout_ref\` with \`${v.has("actor_rollout_ref", "actor") ? "actor" : "rollout"}\` beside \`${beside}\` (a verl trainer config)` : undefined;
}

/**
 * accelerate/key-belongs-in-deepspeed-file: A key that must live in the DeepSpeed file when deepspeed_config_file is
 * set.
 *
 * Keys that must live in the DeepSpeed file when `deepspeed_config_file` is given.
 */
import { shownLink } from "../../common/linkedFiles";
import { firstFitting } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix } from "../../common/edits";
import type { View } from "../../common/view";
import { DS_FILE_EXCLUSIVE } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const keyBelongsInDeepspeedFile: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/key-belongs-in-deepspeed-file"],
  restsOn: [],
  run({ doc, v, distType, env }) {
    const d = diagnostics("accelerate");
    if (distType !== "DEEPSPEED") return d.out;
    const fileEntry = v.entry("deepspeed_config", "deepspeed_config_file");
    const rel = v.str("deepspeed_config", "deepspeed_config_file");
    if (!fileEntry || !rel) return d.out;
    // key-belongs-in-deepspeed-file: keys that must live in the DS file when one is given.
    const offending: { path: string[]; range: NonNullable<ReturnType<View["sectionRange"]>> }[] = [];
    if (v.has("mixed_precision")) offending.push({ path: ["mixed_precision"], range: v.sectionRange("mixed_precision")! });
    for (const k of DS_FILE_EXCLUSIVE) if (v.has("deepspeed_config", k)) offending.push({ path: ["deepspeed_config", k], range: v.sectionRange("deepspeed_config", k)! });
    for (const o of offending) {
      const name = o.path[o.path.length - 1]!;
      d.add("key-belongs-in-deepspeed-file", "error", v.keyRange(...o.path), { message: firstFitting([`\`${o.path.join(".")}\` cannot be set with \`deepspeed_config_file\`: accelerate raises ValueError at launch`, `\`${o.path.join(".")}\` cannot be set with \`deepspeed_config_file\` (ValueError)`]), detail: `\`${o.path.join(".")}\` cannot be set together with \`deepspeed_config_file\`: accelerate raises ValueError ("When using \`deepspeed_config_file\`, the following accelerate config variables will be ignored..."). Set ${name === "mixed_precision" ? "`bf16`/`fp16` (or \"auto\")" : `the matching key (or "auto")`} in ${shownLink(env, rel)} instead.` }, [
        fix(`Remove \`${name}\` (set it in the DeepSpeed file)`, removeKey(doc, o.range), true),
      ]);
    }
    return d.out;
  },
};

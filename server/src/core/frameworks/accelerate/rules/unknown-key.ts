/**
 * accelerate/unknown-key: An unknown accelerate config key or distributed_type.
 *
 * A `distributed_type` accelerate does not know, and top-level keys that are not accelerate config keys (`accelerate launch` refuses the file).
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { removeKey, fix, replaceValue } from "../../common/edits";
import { nearest } from "../../common/wording";
import { CLUSTER_KEYS, DISTRIBUTED_TYPES, REMOVED_CLUSTER_KEYS, SAGEMAKER_KEYS } from "../data";
import { packagePin, versionAtLeast } from "../../../workspace/packagePin";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const unknownKey: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/unknown-key"],
  restsOn: [],
  run({ doc, env, v, distType, distEntry }) {
    const d = diagnostics("accelerate");
    if (distType && !DISTRIBUTED_TYPES.includes(distType) && distEntry?.value.kind === "string") {
      const to = nearest(distType, DISTRIBUTED_TYPES);
      d.add("unknown-key", "error", distEntry.value.range, { message: `\`distributed_type: ${distType}\` is not a DistributedType accelerate knows: the launch fails with ValueError`, detail: `\`distributed_type: ${distType}\` is not a DistributedType accelerate knows (${DISTRIBUTED_TYPES.join(", ")}); the launch fails with ValueError.` }, to ? [fix(`Change to ${to}`, [replaceValue(distEntry, to)], true)] : []);
    }
    const sagemaker = v.str("compute_environment") === "AMAZON_SAGEMAKER";
    const allowed = sagemaker ? SAGEMAKER_KEYS : CLUSTER_KEYS;
    for (const k of v.childKeys()) {
      if (k.startsWith("(document")) continue;
      if (allowed.includes(k)) continue;
      const r = v.keyRange(k)!;
      const span = v.sectionRange(k)!;
      const removedIn = sagemaker ? undefined : REMOVED_CLUSTER_KEYS[k];
      if (removedIn) {
        // A key of older releases: what the launch does depends on the accelerate version (issue #17: a 2024
        // XPU config's `ipex_config` got "refuses the file" on an assumed newest release).
        const pin = packagePin(env, "accelerate");
        if (pin && !versionAtLeast(pin.version, removedIn)) continue;
        const remove = [fix(`Remove \`${k}\``, removeKey(doc, span), true)];
        if (pin) d.add("unknown-key", "error", r, { message: `\`${k}\` was removed in accelerate ${removedIn}: \`accelerate launch\` ${pin.version} refuses the file`, detail: `\`${k}\` was removed in accelerate ${removedIn} (${pin.where}): the loader refuses the file (ValueError "The config file at ... had unknown keys").` }, remove);
        else d.add("unknown-key", "warning", r, { message: `\`${k}\` was removed in accelerate ${removedIn}: from that release \`accelerate launch\` refuses the file`, detail: `\`${k}\` is a config key of accelerate before ${removedIn}, which removed it; no accelerate pin was found in the workspace, so the version that launches this file is not known. From ${removedIn} on the loader refuses the file (ValueError "The config file at ... had unknown keys"); older releases read it.` }, remove);
        continue;
      }
      let hint = "";
      if (k.startsWith("fsdp_")) hint = " It looks like an FSDP option: move it under `fsdp_config`.";
      else if (k.startsWith("parallelism_config_")) hint = " Move it under `parallelism_config`.";
      else if (/^(zero|offload|deepspeed)/.test(k)) hint = " It looks like a DeepSpeed option: move it under `deepspeed_config`.";
      else {
        const near = nearest(k, allowed);
        if (near) hint = ` Did you mean \`${near}\`?`;
      }
      const head = `\`${k}\` is not an accelerate ${sagemaker ? "SageMaker " : ""}config key: \`accelerate launch\` refuses the file`;
      d.add("unknown-key", "error", r, { message: fitMessage(head, hint && `; ${hint.trim().replace(/^It looks like an? \w+ option: /, "").replace(/\.$/, "").replace(/^(\w)/, (c) => c.toLowerCase())}`), detail: `\`${k}\` is not an accelerate ${sagemaker ? "SageMaker " : ""}config key: \`accelerate launch\` refuses the file (ValueError "The config file at ... had unknown keys").${hint}` }, [fix(`Remove \`${k}\``, removeKey(doc, span), true)]);
    }
    return d.out;
  },
};

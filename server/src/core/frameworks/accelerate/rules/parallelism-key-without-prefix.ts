/**
 * accelerate/parallelism-key-without-prefix: parallelism_config keys without their parallelism_config_ prefix are
 * ignored.
 *
 * `parallelism_config` keys without the `parallelism_config_` prefix are silently ignored.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix } from "../../common/edits";
import { PAR_OTHER, PAR_SIZES } from "../data";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const parallelismKeyWithoutPrefix: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/parallelism-key-without-prefix"],
  restsOn: [],
  run({ v }) {
    const d = diagnostics("accelerate");
    const p = v.at("parallelism_config");
    for (const k of p.childKeys()) {
      const bare = k.replace(/^parallelism_config_/, "");
      if (k === bare && (PAR_SIZES.includes(k) || PAR_OTHER.includes(k))) {
        d.add("parallelism-key-without-prefix", "information", p.keyRange(k), { message: fitMessage(`\`parallelism_config.${k}\` lacks the \`parallelism_config_\` prefix: it is silently ignored`), detail: `\`parallelism_config.${k}\` lacks the \`parallelism_config_\` prefix: the launcher copies these keys verbatim, so it is silently ignored. Every size then stays 1 and accelerate sets dp_replicate = num_processes, i.e. FSDP2 runs replicated with no sharding.` }, [
          fix(`Rename to parallelism_config_${k}`, [{ range: p.keyRange(k)!, newText: `parallelism_config_${k}` }], true),
        ]);
        continue;
      }
    }
    return d.out;
  },
};

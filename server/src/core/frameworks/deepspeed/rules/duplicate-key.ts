/**
 * deepspeed/duplicate-key: A key defined twice in one JSON object: DeepSpeed refuses the file.
 *
 * A key defined twice in one object; DeepSpeed refuses duplicate keys when it loads the config.
 */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { jsonDuplicateKeys } from "../../../parse/json";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";
import { MAX_REPEATED_DIAGNOSTICS } from "../../../model/limits";

export const duplicateKey: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/duplicate-key"],
  restsOn: [],
  run({ doc }) {
    const d = diagnostics("deepspeed");
    const dups = jsonDuplicateKeys(doc);
    for (const [i, dup] of dups.entries()) {
      if (i === MAX_REPEATED_DIAGNOSTICS) {
        const more = dups.length - i;
        d.add("duplicate-key", "error", dup.range, { message: fitMessage(`${more} more keys are defined twice in this file (the first ${i} are listed): DeepSpeed refuses the config`), detail: `${more} more keys are defined twice in this file, from \`${dup.path.join(".")}\` (here) on; only the first ${i} duplicates get a diagnostic of their own. DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).` });
        break;
      }
      d.add("duplicate-key", "error", dup.range, { message: fitMessage(`\`${dup.path.join(".")}\` is defined twice in the same object: DeepSpeed refuses the config (ValueError)`), detail: `\`${dup.path.join(".")}\` is defined twice in the same object; DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).` });
    }
    return d.out;
  },
};

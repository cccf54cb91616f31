/** deepspeed/duplicate-key: a key defined twice in one object; DeepSpeed refuses duplicate keys when it loads the config. */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { jsonDuplicateKeys } from "../../../parse/json";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

/**
 * At most this many duplicate keys are reported one by one (issue #18: a 390 kB file gave 15,000
 * diagnostics, 10.6 MB of SARIF); the last diagnostic then counts the rest.
 */
export const MAX_DUPLICATE_KEYS_REPORTED = 100;

export const duplicateKey: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/duplicate-key"],
  restsOn: [],
  run({ doc }) {
    const d = diagnostics("deepspeed");
    const dups = jsonDuplicateKeys(doc);
    for (const [i, dup] of dups.entries()) {
      if (i === MAX_DUPLICATE_KEYS_REPORTED) {
        const more = dups.length - MAX_DUPLICATE_KEYS_REPORTED;
        d.add("duplicate-key", "error", dup.range, { message: fitMessage(`${more} more duplicate keys from here on (only the first ${MAX_DUPLICATE_KEYS_REPORTED} are listed): DeepSpeed refuses the config`), detail: `${more} more keys are defined twice in the same object, this one first; Precision Lens lists the first ${MAX_DUPLICATE_KEYS_REPORTED} one by one. DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).` });
        break;
      }
      d.add("duplicate-key", "error", dup.range, { message: fitMessage(`\`${dup.path.join(".")}\` is defined twice in the same object: DeepSpeed refuses the config (ValueError)`), detail: `\`${dup.path.join(".")}\` is defined twice in the same object; DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).` });
    }
    return d.out;
  },
};

/** deepspeed/duplicate-key: a key defined twice in one object; DeepSpeed refuses duplicate keys when it loads the config. */
import { fitMessage } from "../../../diagnostics/build";
import { diagnostics } from "../../common/diagnosticBuilder";
import { jsonDuplicateKeys } from "../../../parse/json";
import type { FrameworkRule } from "../../common/rule";
import type { DeepSpeedContext } from "../context";

export const duplicateKey: FrameworkRule<DeepSpeedContext> = {
  codes: ["deepspeed/duplicate-key"],
  restsOn: [],
  run({ doc }) {
    const d = diagnostics("deepspeed");
    for (const dup of jsonDuplicateKeys(doc)) {
      d.add("duplicate-key", "error", dup.range, { message: fitMessage(`\`${dup.path.join(".")}\` is defined twice in the same object: DeepSpeed refuses the config (ValueError)`), detail: `\`${dup.path.join(".")}\` is defined twice in the same object; DeepSpeed refuses duplicate keys when it loads the config (ValueError from dict_raise_error_on_duplicate_keys).` });
    }
    return d.out;
  },
};

/**
 * accelerate/fsdp2-unsupported-option: An option FSDP2 does not support (forward prefetch, LOCAL_STATE_DICT).
 *
 * FSDP2 rejects forward prefetch and LOCAL_STATE_DICT.
 */
import { diagnostics } from "../../common/diagnosticBuilder";
import { fix, replaceValue } from "../../common/edits";
import type { FrameworkRule } from "../../common/rule";
import type { AccelerateContext } from "../context";

export const fsdp2UnsupportedOption: FrameworkRule<AccelerateContext> = {
  codes: ["accelerate/fsdp2-unsupported-option"],
  restsOn: [],
  run({ v, distType, fsdpVersion }) {
    const d = diagnostics("accelerate");
    if (distType !== "FSDP") return d.out;
    const f = v.at("fsdp_config");
    if (fsdpVersion === 2) {
      const fp = f.entry("fsdp_forward_prefetch");
      if (fp && fp.value.value === true) d.add("fsdp2-unsupported-option", "error", fp.value.range, "`fsdp_forward_prefetch: true` is not supported with `fsdp_version: 2`: accelerate raises ValueError.", [fix("Set to false", [replaceValue(fp, "false")], true)]);
      const sd = f.entry("fsdp_state_dict_type");
      if (sd && sd.value.value === "LOCAL_STATE_DICT") d.add("fsdp2-unsupported-option", "error", sd.value.range, { message: "`fsdp_state_dict_type: LOCAL_STATE_DICT` is not supported with `fsdp_version: 2`: accelerate raises ValueError", detail: "`fsdp_state_dict_type: LOCAL_STATE_DICT` is not supported with `fsdp_version: 2`: accelerate raises ValueError. Use SHARDED_STATE_DICT." }, [fix("Use SHARDED_STATE_DICT", [replaceValue(sd, "SHARDED_STATE_DICT")], true)]);
    }
    return d.out;
  },
};

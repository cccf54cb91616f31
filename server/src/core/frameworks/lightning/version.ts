/**
 * Lightning rules whose truth depends on the Lightning version read the version pinned in the workspace
 * (`lightning` or `pytorch-lightning`, workspace/packagePin.ts); with no exact pin they assume the newest.
 */
import type { AnalysisEnv } from "../../analysis";
import { packagePin, versionAtLeast } from "../../workspace/packagePin";

/** The newest Lightning release read for the spec (tag 2.6.5). */
export const LIGHTNING_NEWEST = "2.6.5";

export interface LightningVersion {
  pinned?: string;
  detail: string;
}

export function lightningVersion(env: AnalysisEnv): LightningVersion {
  for (const pkg of ["lightning", "pytorch-lightning"]) {
    const pin = packagePin(env, pkg);
    if (pin) return { pinned: pin.version, detail: `${pin.where.replace(/: [^:]*$/, "")} pins ${pkg} ${pin.version}` };
  }
  return { detail: `no Lightning pin found in the workspace; assuming the newest Lightning (${LIGHTNING_NEWEST})` };
}

/**
 * Whether FSDPPrecision builds modules in fp32 under a `-mixed` precision. Before 2.6.4 its
 * `module_init_context` used the policy's param_dtype, so parameters created under `fabric.init_module()` /
 * `trainer.init_module()` / `configure_model` were bf16/fp16 (Lightning-AI/pytorch-lightning#21556, fixed by
 * #21586 in 2.6.4: src/lightning/fabric/plugins/precision/fsdp.py:115 and
 * src/lightning/pytorch/plugins/precision/fsdp.py:125 at 2.6.4). Undefined when not pinned.
 */
export function fsdpInitsFp32(v: LightningVersion): boolean | undefined {
  return v.pinned ? versionAtLeast(v.pinned, "2.6.4") : undefined;
}

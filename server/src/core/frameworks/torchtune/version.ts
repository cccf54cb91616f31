/**
 * torchtune rules whose truth depends on the torchtune version read the version pinned in the workspace
 * (workspace/packagePin.ts); with no exact pin they assume the newest torchtune and say so.
 */
import type { FactValue } from "../../provenance";
import type { AnalysisEnv } from "../../analysis";
import { packagePin, versionAtLeast } from "../../workspace/packagePin";

/** The newest torchtune (version.txt at meta-pytorch/torchtune bd2a0fc, the spec's snapshot). */
export const TORCHTUNE_NEWEST = "0.7.0";

export interface TorchtuneVersion {
  /** The pinned version, or undefined when the newest is assumed. */
  pinned?: string;
  /** User-facing: "torchtune 0.6.1 pinned in requirements.txt" / "no torchtune pin found; assuming the newest (0.7.0)". */
  detail: string;
}

export function torchtuneVersion(env: AnalysisEnv): TorchtuneVersion {
  const pin = packagePin(env, "torchtune");
  if (pin) return { pinned: pin.version, detail: `torchtune ${pin.version} pinned in ${pin.where.replace(/: torchtune .*$/, "")}` };
  return { detail: `no torchtune pin found in the workspace; assuming the newest torchtune (${TORCHTUNE_NEWEST})` };
}

/** The torchtune version as a fact (core/provenance.ts): a workspace pin, or the newest assumed. */
export function torchtuneVersionFact(env: AnalysisEnv): FactValue {
  const v = torchtuneVersion(env);
  return v.pinned ? { value: `torchtune ${v.pinned}`, kind: "workspace-pin", detail: v.detail } : { value: `torchtune ${TORCHTUNE_NEWEST}`, kind: "default", detail: "the newest release" };
}

/**
 * Whether `compile: True` also compiles the optimizer step (and so conflicts with `optimizer_in_bwd`).
 * Bool `compile` set `_compile_optimizer_step` from torchtune commit 173a6feb (2025-05-06, PR #2659), and
 * the ValueError came with aa63d17 (2025-05-11, PR #2718), after v0.6.1 (2025-04-07), whose
 * full_finetune_distributed.py only compiles the model and the loss. So: 0.7.0 and later, or a nightly
 * dated from 2025-05-11. Undefined when the version is not pinned.
 */
export function compilesOptimizerStep(v: TorchtuneVersion): boolean | undefined {
  if (!v.pinned) return undefined;
  const dev = /dev(\d{8})/.exec(v.pinned);
  if (dev) return dev[1]! >= "20250511";
  return versionAtLeast(v.pinned, "0.7.0");
}

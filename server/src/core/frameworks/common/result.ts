/**
 * The one place a YAML/JSON framework's pieces become its FrameworkAnalysis: a launch error makes the
 * mechanism "error", the precision table becomes the shared ResolvedPrecision, the engine's per-op view (if
 * the framework has one) is appended to the report, and the world size and layout travel when known.
 */
import type { FrameworkAnalysis, HoverTarget, InlayHintData, Sourced } from "../../analysis";
import type { Mechanism, ParallelLayout } from "../../layout";
import type { Diagnostic } from "../../types";
import { launchErrors } from "./diagnosticBuilder";
import { withPerOp, type EngineSpec } from "./engineView";
import { toResolved, type PrecisionTable } from "./precisionTable";

export interface FrameworkPieces {
  resolution: { layoutName: string; mechanism: Mechanism; table?: PrecisionTable | undefined; setBy?: string | undefined; parallel?: ParallelLayout | undefined };
  diagnostics: Diagnostic[];
  hover: { markdown: string; hovers: HoverTarget[]; inlayHints: InlayHintData[] };
  worldSize?: Sourced<number> | undefined;
  /** The engine's per-op view for the report, where the engine models this run. */
  engine?: EngineSpec | undefined;
}

/** The launch errors among a framework's diagnostics (the hover and the mechanism both name them). */
export const failedLaunch = (diagnostics: readonly Diagnostic[]): Diagnostic[] => launchErrors({ out: diagnostics });

export function frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize, engine }: FrameworkPieces): FrameworkAnalysis {
  const out: FrameworkAnalysis = {
    layoutName: r.layoutName,
    mechanism: failedLaunch(diagnostics).length ? "error" : r.mechanism,
    diagnostics,
    hovers: hover.hovers,
    reportMarkdown: withPerOp(hover.markdown, engine),
    inlayHints: hover.inlayHints,
  };
  if (r.table) out.precision = toResolved(r.table, r.setBy);
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}

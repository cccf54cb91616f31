/**
 * The one place a YAML/JSON framework's pieces become its FrameworkAnalysis: a launch error makes the
 * mechanism "error", the precision table becomes the shared ResolvedPrecision, the engine's per-op view (if
 * the framework has one) is appended to the report, and the world size and layout travel when known.
 */
import type { FrameworkAnalysis, HoverTarget, InlayHintData, Sourced } from "../../analysis";
import type { Mechanism, ParallelLayout } from "../../model/layout";
import type { Diagnostic } from "../../model/types";
import { defineLazy } from "../../model/lazy";
import { launchErrors } from "./diagnosticBuilder";
import { withPerOp, type EngineSpec } from "./engineView";
import { toResolved, type PrecisionTable } from "./precisionTable";

export interface FrameworkPieces {
  resolution: { layoutName: string; mechanism: Mechanism; table?: PrecisionTable | undefined; setBy?: string | undefined; parallel?: ParallelLayout | undefined };
  diagnostics: Diagnostic[];
  /**
   * The hover summary, hover targets and inlay hints. Pass a function: it runs only when a front end reads
   * `hovers`, `inlayHints` or `reportMarkdown` (once for all three), so `check` never builds them. A plain
   * object still works (computed eagerly by the caller).
   */
  hover: FrameworkHover | (() => FrameworkHover);
  worldSize?: Sourced<number> | undefined;
  /** The engine's per-op view for the report, where the engine models this run. */
  engine?: EngineSpec | undefined;
}

export interface FrameworkHover {
  markdown: string;
  hovers: HoverTarget[];
  inlayHints: InlayHintData[];
}

/** The launch errors among a framework's diagnostics (the hover and the mechanism both name them). */
export const failedLaunch = (diagnostics: readonly Diagnostic[]): Diagnostic[] => launchErrors({ out: diagnostics });

export function frameworkAnalysis({ resolution: r, diagnostics, hover, worldSize, engine }: FrameworkPieces): FrameworkAnalysis {
  let built: FrameworkHover | undefined = typeof hover === "function" ? undefined : hover;
  const h = (): FrameworkHover => (built ??= (hover as () => FrameworkHover)());
  // Placeholders keep the key order; the features are lazy (core/model/lazy.ts, docs/ARCHITECTURE.md).
  const out: FrameworkAnalysis = {
    layoutName: r.layoutName,
    mechanism: failedLaunch(diagnostics).length ? "error" : r.mechanism,
    diagnostics,
    hovers: [],
    reportMarkdown: "",
    inlayHints: [],
  };
  defineLazy(out, "hovers", () => h().hovers);
  defineLazy(out, "reportMarkdown", () => withPerOp(h().markdown, engine));
  defineLazy(out, "inlayHints", () => h().inlayHints);
  if (r.table) out.precision = toResolved(r.table, r.setBy);
  if (worldSize) out.worldSize = worldSize;
  if (r.parallel) out.parallel = r.parallel;
  return out;
}

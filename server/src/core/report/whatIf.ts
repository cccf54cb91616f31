/**
 * The what-if matrix: the same torchtitan config at other world sizes (1, 2, 4, … 1024) and under the
 * other torchtitan versions that read TOML (v0.1.0 … v0.2.2 and the unmerged PR #2213). Every cell runs
 * the analyser's own pipeline (world size → parallel dims → the version's era decision → precision →
 * simulated step) with that world size and version forced, so a cell is exactly what the analysis
 * would say after writing `# precision-lens: world-size=N` / `torchtitan-version=V` into the file.
 */
import { NO_ENV, type AnalysisEnv, type AnalysisResult, type AnalysisSettings, type Mechanism } from "../analysis";
import type { ConfigDocument } from "../model/document";
import { buildTitanContext } from "../frameworks/torchtitan/analyzer";
import { parseVersion } from "../frameworks/torchtitan/versions";
import { throughputOf } from "./throughput";
import { pyScenario, type PyScenario } from "../frameworks/torchtitan/python/analyzer";
import { parsePyVersion, PY_WHAT_IF_VERSIONS } from "../frameworks/torchtitan/python/context";

/** Rows: powers of two up to 1024 (a config's own world size is added when it is not one of them). */
export const WHAT_IF_WORLD_SIZES: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

export interface WhatIfVersion {
  /** As a directive or setting takes it: "v0.2.2", "v0.2.2+pr2213", "main@2025-03-01". */
  id: string;
  /** Column header. */
  label: string;
}

/** Columns: the releases that read TOML configs, then PR #2213 as a what-if. */
export const WHAT_IF_VERSIONS: readonly WhatIfVersion[] = [
  { id: "v0.1.0", label: "v0.1.0" },
  { id: "v0.2.0", label: "v0.2.0" },
  { id: "v0.2.1", label: "v0.2.1" },
  { id: "v0.2.2", label: "v0.2.2" },
  { id: "v0.2.2+pr2213", label: "PR #2213" },
];

export interface WhatIfCell {
  worldSize: number;
  version: string;
  /** "error" when the layout fails torchtitan's validation at this world size. */
  mechanism: Mechanism;
  /** Matmul compute dtype (torch spelling); absent when the launch fails. */
  compute?: string;
  layoutName?: string;
  /** Estimated reserved peak memory per GPU; absent for models of unknown size or failed launches. */
  peakBytes?: number;
  /** From the throughput model, when present. */
  tokensPerSecondPerGpu?: number;
  /** Why the launch fails (first validation error). */
  error?: string;
  /** The cell the analysis targets (the file's own world size and version). */
  current: boolean;
}

export interface WhatIfView {
  worldSizes: number[];
  versions: WhatIfVersion[];
  /** Row-major: worldSizes.length × versions.length cells. */
  cells: WhatIfCell[];
  current: { worldSize: number; version: string };
}

const DIRECTIVE_COMMENT = /^precision-lens\s*:/i;

/** One cell: the analyser's context with world size and version forced (in-file directives set aside). */
export function whatIfCell(doc: ConfigDocument, worldSize: number, version: string, settings: AnalysisSettings = {}): Omit<WhatIfCell, "current"> {
  // A directive in the file would win over the forced version; the cell answers "what if the directive said …".
  const forced: ConfigDocument = { ...doc, comments: doc.comments.filter((c) => !DIRECTIVE_COMMENT.test(c.text)) };
  const { ctx } = buildTitanContext(forced, { ...settings, worldSize, torchtitanVersion: version }, NO_ENV);
  const cell: Omit<WhatIfCell, "current"> = { worldSize, version, mechanism: ctx.decision.mechanism };
  if (ctx.precision?.compute.dtype && ctx.decision.mechanism !== "error") cell.compute = ctx.precision.compute.dtype;
  if (ctx.dims.resolved) cell.layoutName = ctx.layoutName;
  const bytes = ctx.simulation?.memory.perGpuBytes;
  const peak = bytes ? Math.max(bytes.reserved, bytes.peak) : undefined;
  if (peak !== undefined && Number.isFinite(peak)) cell.peakBytes = peak;
  const tps = throughputOf(ctx.simulation)?.tokensPerSecondPerGpu;
  if (tps !== undefined) cell.tokensPerSecondPerGpu = tps;
  if (ctx.decision.mechanism === "error") cell.error = ctx.decision.error ?? ctx.decision.reason;
  return cell;
}

/** One cell of a registry's config function: the function re-resolved with world size and version forced. */
export function pyWhatIfCell(scenario: PyScenario, worldSize: number, version: string): Omit<WhatIfCell, "current"> {
  const got = scenario.resolve(worldSize, version);
  if (!got) return { worldSize, version, mechanism: "error", error: `unknown torchtitan version ${version}` };
  const { r, simulation } = got;
  const cell: Omit<WhatIfCell, "current"> = { worldSize, version, mechanism: r.decision.mechanism };
  if (r.precision?.compute.dtype && r.decision.mechanism !== "error") cell.compute = r.precision.compute.dtype;
  if (r.dims.resolved) cell.layoutName = r.layoutName;
  const bytes = simulation?.memory.perGpuBytes;
  const peak = bytes ? Math.max(bytes.reserved, bytes.peak) : undefined;
  if (peak !== undefined && Number.isFinite(peak)) cell.peakBytes = peak;
  const tps = throughputOf(simulation)?.tokensPerSecondPerGpu;
  if (tps !== undefined) cell.tokensPerSecondPerGpu = tps;
  if (r.decision.mechanism === "error") cell.error = r.decision.error ?? r.decision.reason;
  return cell;
}

/**
 * A registry's matrix: world sizes × the Python-era periods and releases, for the config function the result
 * reports (the one asked for, else the first). `env` follows the function's imports as the analysis did.
 */
function buildPyWhatIf(result: AnalysisResult, settings: AnalysisSettings, env: AnalysisEnv): WhatIfView | undefined {
  const fnName = result.configFunctions?.[0]?.name;
  if (!fnName || !result.worldSize || !result.torchtitanVersion) return undefined;
  const scenario = pyScenario(result.doc, settings, env, fnName);
  if (!scenario) return undefined;
  const current = { worldSize: result.worldSize.value, version: result.torchtitanVersion.value };
  const worldSizes = withCurrent([...WHAT_IF_WORLD_SIZES], current.worldSize);
  const versions: WhatIfVersion[] = PY_WHAT_IF_VERSIONS.map((v) => ({ ...v }));
  const date = parsePyVersion(current.version)?.date;
  if (date && !versions.some((v) => v.id === current.version)) {
    const at = versions.findIndex((v) => parsePyVersion(v.id)!.date > date);
    versions.splice(at < 0 ? versions.length : at, 0, { id: current.version, label: current.version.replace(/^main@/, "main ") });
  }
  const cells: WhatIfCell[] = [];
  for (const w of worldSizes) for (const v of versions) cells.push({ ...pyWhatIfCell(scenario, w, v.id), current: w === current.worldSize && v.id === current.version });
  return { worldSizes, versions, cells, current };
}

function withCurrent(sizes: number[], current: number): number[] {
  if (!sizes.includes(current)) {
    sizes.push(current);
    sizes.sort((a, b) => a - b);
  }
  return sizes;
}

/**
 * The matrix for a torchtitan result; undefined when the result has no world size or version. A registry's
 * cells re-read its imports through `env` (NO_ENV: the document alone).
 */
export function buildWhatIf(result: AnalysisResult, settings: AnalysisSettings = {}, env: AnalysisEnv = NO_ENV): WhatIfView | undefined {
  if (result.framework === "torchtitan" && result.format === "python") return buildPyWhatIf(result, settings, env);
  if (result.framework !== "torchtitan" || !result.worldSize || !result.torchtitanVersion) return undefined;
  const current = { worldSize: result.worldSize.value, version: result.torchtitanVersion.value };
  const worldSizes = [...WHAT_IF_WORLD_SIZES];
  if (!worldSizes.includes(current.worldSize)) {
    worldSizes.push(current.worldSize);
    worldSizes.sort((a, b) => a - b);
  }
  const versions = [...WHAT_IF_VERSIONS];
  if (!versions.some((v) => v.id === current.version) && parseVersion(current.version)) {
    // A main-branch date: its own column, placed by date among the releases.
    const date = parseVersion(current.version)!.date;
    const at = versions.findIndex((v) => v.id !== "v0.2.2+pr2213" && parseVersion(v.id)!.date > date);
    versions.splice(at < 0 ? versions.length - 1 : at, 0, { id: current.version, label: current.version.replace(/^main@/, "main ") });
  }
  const cells: WhatIfCell[] = [];
  for (const w of worldSizes) {
    for (const v of versions) {
      cells.push({ ...whatIfCell(result.doc, w, v.id, settings), current: w === current.worldSize && v.id === current.version });
    }
  }
  return { worldSizes, versions, cells, current };
}

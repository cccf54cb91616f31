/**
 * Precedence of the explicit sources of a world size or torchtitan version (issue #12):
 *   command line (--world-size, --torchtitan-version)  >  a `# precision-lens:` directive in the file
 *   >  the workspace setting (precisionLens.worldSize, precisionLens.torchtitanVersion)
 * The directive is more specific than a workspace-wide setting; the command line is typed for one run.
 * Inferred sources (run scripts, pins, config keys, defaults) apply only when no explicit source exists.
 * The winner's detail says which explicit sources it overrode, so the hover and the status show it.
 */
import type { AnalysisSettings, Sourced } from "../analysis";

/** One explicit candidate; `label` is how the overridden side is named ("the precisionLens.worldSize setting (16)"). */
export interface Explicit<T> extends Sourced<T> {
  /** short name of this source when another wins over it */
  label: string;
}

/** Where AnalysisSettings came from: the editor's workspace settings (default) or the command line. */
export function settingsOrigin(settings: AnalysisSettings): "cli" | "setting" {
  return settings.origin === "cli" ? "cli" : "setting";
}

/**
 * Orders the explicit candidates by precedence (command line, directive, workspace setting) and returns the
 * winner, its detail extended with what it overrode; undefined when there is none.
 * `fromSettings` is the candidate built from AnalysisSettings (a CLI flag or a workspace setting).
 */
export function pickExplicit<T>(settings: AnalysisSettings, fromSettings: Explicit<T> | undefined, directive: Explicit<T> | undefined): Sourced<T> | undefined {
  const ordered = (settingsOrigin(settings) === "cli" ? [fromSettings, directive] : [directive, fromSettings]).filter((c): c is Explicit<T> => !!c);
  const [win, ...lost] = ordered;
  if (!win) return undefined;
  const out: Sourced<T> = { value: win.value, source: win.source, kind: win.kind, detail: win.detail };
  if (win.location) out.location = win.location;
  if (lost.length) {
    out.detail = `${win.detail}; overrides ${lost.map((l) => l.label).join(" and ")}`;
    out.overrides = lost.map((l) => ({ value: l.value, source: l.source, kind: l.kind, detail: l.detail }));
  }
  return out;
}

/** The world-size candidate of the settings: a CLI flag or the workspace setting. */
export function worldSizeFromSettings(settings: AnalysisSettings): Explicit<number> | undefined {
  const ws = settings.worldSize;
  if (!ws || ws <= 0 || !Number.isInteger(ws)) return undefined;
  return settingsOrigin(settings) === "cli"
    ? { value: ws, source: "setting", kind: "cli", detail: `--world-size ${ws} on the command line`, label: `--world-size ${ws}` }
    : { value: ws, source: "setting", kind: "setting", detail: `precisionLens.worldSize setting (${ws})`, label: `the precisionLens.worldSize setting (${ws})` };
}

/** The torchtitan-version candidate of the settings, for a version string that `parse` accepts. */
export function versionFromSettings<V>(settings: AnalysisSettings, parse: (s: string) => V | undefined): Explicit<V> | undefined {
  const s = settings.torchtitanVersion?.trim();
  if (!s || s === "auto") return undefined;
  const v = parse(s);
  if (v === undefined) return undefined;
  return settingsOrigin(settings) === "cli"
    ? { value: v, source: "setting", kind: "cli", detail: `set by --torchtitan-version ${s} on the command line`, label: `--torchtitan-version ${s}` }
    : { value: v, source: "setting", kind: "setting", detail: `set by the precisionLens.torchtitanVersion setting to ${s}`, label: `the precisionLens.torchtitanVersion setting (${s})` };
}

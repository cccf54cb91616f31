/**
 * The one source of truth for the extension's settings. `package.json` `contributes.configuration` is
 * generated from this table (`npm run setup:manifest`) and test/manifest.test.ts fails when they differ.
 * No `vscode` import here: tests and the manifest script load this file in plain Node.
 */
import { SETTINGS_SECTION, type ServerSettings } from "../../server/src/protocol";
import { DEFAULT_GPU, GPUS, GPU_IDS } from "../../server/src/core/engine/gpus";
import { PY_RELEASES } from "../../server/src/core/frameworks/torchtitan/python/context";

export { SETTINGS_SECTION };

/** torchtitan versions offered in pickers and accepted by the setting (besides `main@YYYY-MM-DD`). */
export const TORCHTITAN_VERSIONS = ["auto", "v0.1.0", "v0.2.0", "v0.2.1", "v0.2.2", "v0.2.2+pr2213"] as const;
export const MAIN_DATE_PATTERN = /^main@\d{4}-\d{2}-\d{2}$/;

/**
 * The releases of torchtitan's Python config registries (`config_registry.py`, from 2026-02-23), accepted by the
 * setting and offered in the picker beside the TOML ones (issue #34: the setting's pattern rejected them).
 */
export const TORCHTITAN_PY_VERSIONS = Object.keys(PY_RELEASES) as readonly string[];

const VERSION_DESCRIPTIONS: Record<(typeof TORCHTITAN_VERSIONS)[number], string> = {
  auto: "Detect from the workspace (pinned torchtitan version) or from the keys the config uses; v0.2.2 otherwise.",
  "v0.1.0": "torchtitan v0.1.0 (2025-06-17).",
  "v0.2.0": "torchtitan v0.2.0 (2025-10-17).",
  "v0.2.1": "torchtitan v0.2.1 (2025-12-26).",
  "v0.2.2": "torchtitan v0.2.2 (2026-02-20), the last release that reads TOML configs.",
  "v0.2.2+pr2213": "What-if: v0.2.2 with the unmerged pytorch/torchtitan#2213 applied.",
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
export const TORCHTITAN_VERSION_PATTERN = `^(${[...TORCHTITAN_VERSIONS, ...TORCHTITAN_PY_VERSIONS].map(escapeRe).join("|")}|main@\\d{4}-\\d{2}-\\d{2})$`;

/** JSON-schema fragment for one setting, as VS Code reads it from `contributes.configuration.properties`. */
export type SettingSchema = Record<string, unknown> & { default: unknown; scope: "resource" | "window" | "application" };

/** Keys are relative to the `precisionLens` section. Order is the order in the Settings UI. */
export const SETTINGS: Record<string, SettingSchema> = {
  worldSize: {
    type: ["integer", "null"],
    default: null,
    minimum: 0,
    scope: "resource",
    markdownDescription:
      "Number of GPUs the run uses (`WORLD_SIZE`), when the config alone does not say. `null` or `0`: infer it from the parallelism degrees. A `# precision-lens: world-size=N` comment in the file wins over this setting.",
  },
  torchtitanVersion: {
    type: "string",
    default: "auto",
    scope: "resource",
    pattern: TORCHTITAN_VERSION_PATTERN,
    patternErrorMessage: `One of ${[...TORCHTITAN_VERSIONS, ...TORCHTITAN_PY_VERSIONS].join(", ")} or main@YYYY-MM-DD.`,
    examples: [...TORCHTITAN_VERSIONS, ...TORCHTITAN_PY_VERSIONS, "main@2026-01-15"],
    markdownDescription:
      "torchtitan version the configs are checked against: " +
      TORCHTITAN_VERSIONS.map((v) => `\`${v}\``).join(", ") +
      " for TOML configs; " +
      TORCHTITAN_PY_VERSIONS.map((v) => `\`${v}\``).join(", ") +
      " for Python config registries (`config_registry.py`); or `main@YYYY-MM-DD` for a main-branch checkout of that date (TOML up to 2026-02-23, Python from then on). A version that does not apply to a file is not used for it. A `# precision-lens: torchtitan-version=…` comment in the file wins over this setting.",
  },
  gpu: {
    type: "string",
    enum: ["auto", ...GPU_IDS],
    enumDescriptions: [`The default, ${GPUS[DEFAULT_GPU].label}, unless a \`# precision-lens: gpu=…\` directive names another.`, ...GPU_IDS.map((id) => `${GPUS[id].label}: ${GPUS[id].source}.`)],
    default: "auto",
    scope: "resource",
    markdownDescription:
      "GPU type for the throughput (tokens/s per GPU) and memory-capacity estimates in the report (`auto`: H100 SXM). Peak rates and memory come from the vendors' data sheets; the estimate's other constants are named assumptions listed in the report. A `# precision-lens: gpu=…` comment in the file wins over this setting.",
  },
  torchtitanConfigSource: {
    type: "string",
    default: "",
    scope: "resource",
    markdownDescription:
      "A torchtitan fork's config source: its `torchtitan/config/job_config.py`, `config_manager.py` or custom config module file (or the fork's root folder), relative to the workspace folder or absolute. Its dataclass fields become known keys. Empty (default): a fork checked out around the config is found by itself, up to the repository root. CLI: `--torchtitan-config-source PATH`.",
  },
  "trace.server": {
    type: "string",
    enum: ["off", "messages", "verbose"],
    enumDescriptions: ["No LSP trace.", "Trace message names.", "Trace messages with their parameters and results."],
    default: "off",
    scope: "window",
    description: "Traces the communication between VS Code and the Precision Lens language server (Output → Precision Lens Trace).",
  },
};

export const VERSION_PICKS: readonly { id: string; description: string }[] = [
  ...TORCHTITAN_VERSIONS.map((id) => ({ id, description: VERSION_DESCRIPTIONS[id] })),
  ...TORCHTITAN_PY_VERSIONS.map((id) => ({ id, description: `torchtitan ${id}, for Python config registries (config_registry.py).` })),
];

/** The `contributes.configuration` object package.json must carry. */
export function configurationContribution(): { title: string; properties: Record<string, SettingSchema> } {
  const properties: Record<string, SettingSchema> = {};
  for (const [k, v] of Object.entries(SETTINGS)) properties[`${SETTINGS_SECTION}.${k}`] = v;
  return { title: "Precision Lens", properties };
}

export function isValidTorchtitanVersion(v: string): boolean {
  return new RegExp(TORCHTITAN_VERSION_PATTERN).test(v);
}

/** Parses user input for a world size; undefined when invalid. */
export function parseWorldSize(input: string): number | undefined {
  const t = input.trim();
  if (!/^\d{1,6}$/.test(t)) return undefined;
  const n = Number(t);
  return n >= 1 ? n : undefined;
}

export type { ServerSettings };

/** The options of `check` and `explain`: one table drives the parser. */
import { resolve } from "node:path";
import type { AnalysisSettings } from "../core/analysis";
import { GPU_IDS, parseGpu } from "../core/engine";
import { FIRST_MAIN_DATE, LAST_TOML_DATE, parseVersion } from "../core/frameworks/torchtitan/versions";
import { parsePyVersion } from "../core/frameworks/torchtitan/python/context";
import { MAX_WORLD_SIZE } from "../core/model/limits";
import { checkStdinOptions } from "./check";
import { UsageError } from "./usage";
import { table } from "../core/model/table";

export interface CheckOptions {
  settings: AnalysisSettings;
  format: "text" | "json" | "sarif" | "github";
  paths: string[];
  fix: boolean;
  quiet?: boolean;
  maxWarnings?: number;
  stdinFilename?: string;
  verbose: boolean;
  help: boolean;
}

/**
 * The options of `check` and `explain`, one row each: the parser is driven by this table, so a new flag
 * is one row (its value check included). `value` names the flag's argument when it takes one.
 */
interface OptionSpec {
  value?: string;
  apply(opts: CheckOptions, v: string): void;
}

const CHECK_OPTIONS: Readonly<Record<string, OptionSpec>> = table({
  "--world-size": {
    value: "N",
    apply(opts, v) {
      // `FUNCTION=N`: the world size of one config function of a torchtitan Python registry (issue #30 §4).
      const named = /^([A-Za-z_][A-Za-z0-9_]{0,199})=(.*)$/.exec(v);
      if (named) {
        const n = Number(named[2]);
        if (!/^\d+$/.test(named[2]!) || !(n > 0) || named[2]!.replace(/^0+/, "").length > 7 || n > MAX_WORLD_SIZE) throw new UsageError(`--world-size ${named[1]}=N needs a positive integer up to ${MAX_WORLD_SIZE} (2^20), got "${named[2]}"`);
        opts.settings.worldSizeByFunction = { ...opts.settings.worldSizeByFunction, [named[1]!]: n };
        return;
      }
      // Checked on the digits, not on Number(v): 99999999999999999999 must not become 1e+20.
      if (!/^\d+$/.test(v) || /^0+$/.test(v)) throw new UsageError(`--world-size must be a positive integer, got "${v}"`);
      const n = Number(v);
      if (v.replace(/^0+/, "").length > 7 || n > MAX_WORLD_SIZE) throw new UsageError(`--world-size must be at most ${MAX_WORLD_SIZE} (2^20), got "${v}"`);
      opts.settings.worldSize = n;
    },
  },
  "--torchtitan-version": {
    value: "V",
    apply(opts, v) {
      // TOML releases and main dates up to 2026-02-23; Python registries: v0.3.0, v0.4.0, main dates from 2026-02-23.
      if (v !== "auto" && !parseVersion(v) && !parsePyVersion(v)) throw new UsageError(`--torchtitan-version: unknown version "${v}" (use auto, v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213 or main@YYYY-MM-DD, a real date from ${FIRST_MAIN_DATE} to ${LAST_TOML_DATE}; for a Python registry v0.3.0, v0.4.0 or main@YYYY-MM-DD from ${LAST_TOML_DATE})`);
      opts.settings.torchtitanVersion = v;
    },
  },
  "--gpu": {
    value: "G",
    apply(opts, v) {
      if (!parseGpu(v)) throw new UsageError(`--gpu: unknown GPU type "${v}" (use ${GPU_IDS.join(", ")})`);
      opts.settings.gpu = v;
    },
  },
  "--torchtitan-config-source": {
    value: "PATH",
    apply(opts, v) {
      if (!v.trim()) throw new UsageError("--torchtitan-config-source needs a path (a fork's job_config.py, config_manager.py, custom config module, or its root folder)");
      opts.settings.torchtitanConfigSource = v;
    },
  },
  "--format": {
    value: "text|json|sarif|github",
    apply(opts, v) {
      if (v !== "text" && v !== "json" && v !== "sarif" && v !== "github") throw new UsageError(`--format must be text, json, sarif or github, got "${v}"`);
      opts.format = v;
    },
  },
  "--quiet": { apply: (opts) => void (opts.quiet = true) },
  "--max-warnings": {
    value: "N",
    apply(opts, v) {
      if (!/^\d+$/.test(v) || v.replace(/^0+/, "").length > 9) throw new UsageError(`--max-warnings must be a non-negative integer, got "${v}"`);
      opts.maxWarnings = Number(v);
    },
  },
  "--stdin-filename": {
    value: "NAME",
    apply(opts, v) {
      // An empty name has no extension to pick the format and resolves to the working folder itself.
      if (!v.trim()) throw new UsageError("--stdin-filename needs a file name (its extension picks TOML, YAML or JSON)");
      opts.stdinFilename = v;
    },
  },
  "--fix": { apply: (opts) => void (opts.fix = true) },
  "--verbose": { apply: (opts) => void (opts.verbose = true) },
  "--help": { apply: (opts) => void (opts.help = true) },
  "-h": { apply: (opts) => void (opts.help = true) },
});

export function parseCheckArgs(args: string[], cwd: string, command: "check" | "explain" = "check"): CheckOptions {
  // origin "cli": --world-size / --torchtitan-version win over in-file directives (workspace/precedence.ts).
  const opts: CheckOptions = { settings: { origin: "cli" }, format: "text", paths: [], fix: false, verbose: false, help: false };
  let onlyPaths = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (onlyPaths || a === "-" || !a.startsWith("-")) {
      if (a === "") throw new UsageError('an empty path ("") is not a file or folder');
      opts.paths.push(a);
      continue;
    }
    if (a === "--") {
      onlyPaths = true;
      continue;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const spec = Object.prototype.hasOwnProperty.call(CHECK_OPTIONS, flag) ? CHECK_OPTIONS[flag] : undefined;
    if (!spec) throw new UsageError(`unknown option "${a}"`);
    let v = "";
    if (spec.value) {
      const next = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (next === undefined || (eq < 0 && next.startsWith("--"))) throw new UsageError(`${flag} needs a value (${spec.value})`);
      v = next;
    } else if (eq > 0) throw new UsageError(`${flag} takes no value`);
    spec.apply(opts, v);
  }
  // Relative to the folder the CLI runs in, as every path on its command line.
  if (opts.settings.torchtitanConfigSource) opts.settings.torchtitanConfigSource = resolve(cwd, opts.settings.torchtitanConfigSource);
  if (opts.paths.length === 0 && !opts.help) throw new UsageError(command === "explain" ? "explain needs one config file (FILE, or FILE.py::FUNCTION)" : "check needs at least one file or folder");
  if (!opts.help) checkStdinOptions(opts.paths, opts.stdinFilename, opts.fix);
  return opts;
}

/** `explain --format html`: the flag is taken out before the shared option parser sees the arguments. */
export function htmlFormat(args: string[]): { html: boolean; rest: string[] } {
  const at = args.findIndex((a, i) => a === "--format=html" || (a === "--format" && args[i + 1] === "html"));
  if (at < 0) return { html: false, rest: args };
  return { html: true, rest: args.filter((_, i) => i !== at && !(args[at] === "--format" && i === at + 1)) };
}

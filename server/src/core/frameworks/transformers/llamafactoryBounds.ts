/**
 * The transformers releases a LLaMA-Factory install can run with. LLaMA-Factory's `check_dependencies`
 * (src/llamafactory/extras/misc.py) raises at launch unless the installed transformers satisfies its requirement
 * string (`require_version` / `check_version`; skipped only with DISABLE_VERSION_CHECK=1, named assumption
 * `llamafactory-version-check`). So with transformers unpinned, a LLaMA-Factory file's candidate transformers
 * releases stop at that bound: a key only releases past it reject is accepted at every release that can run.
 *
 * Read in this order: the workspace's own vendored copy (`…/llamafactory/extras/misc.py`, the requirement as
 * written: the workspace's code outranks the calendar); else the LLaMA-Factory release (a pin, or a vendored copy's
 * `extras/env.py` VERSION, or the newest read) through the bounds below, read from `check_dependencies` at each tag
 * of hiyouga/LLaMA-Factory (`git show vX:src/llamafactory/extras/misc.py`): v0.9.0 `<=4.45.0`, v0.9.1 `<=4.46.1`,
 * v0.9.2 `<=4.49.0`, v0.9.3 `<=4.52.4`, v0.9.4 `<=4.57.1`, v0.9.5 `<=5.6.0`; v0.6.0–v0.8.3 give a lower bound
 * only (none before). A dev release (0.9.1.dev0) takes its release's bound, the higher of the window.
 */
import type { AnalysisEnv } from "../../analysis";
import { ancestorDirs, join } from "../../workspace/paths";
import type { Versions } from "./context";

const UPPER_BY_RELEASE: readonly (readonly [string, string])[] = [
  ["0.9.5", "5.6.0"],
  ["0.9.4", "4.57.1"],
  ["0.9.3", "4.52.4"],
  ["0.9.2", "4.49.0"],
  ["0.9.1", "4.46.1"],
  ["0.9.0", "4.45.0"],
];

export interface TransformersCap {
  /** The highest transformers release LLaMA-Factory's check accepts. */
  max: string;
  /** Where it was read, user-facing. */
  where: string;
}

/** The `<=X` of a requirement string naming transformers. */
function upperOf(requirement: string): string | undefined {
  return /<=\s*(\d+(?:\.\d+){0,3})/.exec(requirement)?.[1];
}

/** The release part of a version string: 0.9.1.dev0 → 0.9.1. */
function releaseOf(v: string): string {
  return /^\d+(?:\.\d+){0,2}/.exec(v)?.[0] ?? v;
}

/**
 * The vendored LLaMA-Factory package above the config (`<dir>/src/llamafactory` or `<dir>/llamafactory`, nearest
 * first): a folder with `hparams/*.py` or `extras/env.py` / `extras/misc.py`. One finder for the argument classes
 * (argClasses.ts) and the version bound here.
 */
export function vendoredLlamaFactory(env: AnalysisEnv): string | undefined {
  for (const dir of ancestorDirs(env)) {
    for (const pkg of [join(join(dir, "src"), "llamafactory"), join(dir, "llamafactory")]) {
      if ([...env.listDir(join(pkg, "hparams"))].some((n) => n.endsWith(".py"))) return pkg;
      const extras = join(pkg, "extras");
      if (env.readFile(join(extras, "env.py")) !== undefined || env.readFile(join(extras, "misc.py")) !== undefined) return pkg;
    }
  }
  return undefined;
}

export function llamaFactoryTransformersCap(env: AnalysisEnv, versions: Versions): TransformersCap | undefined {
  const pkg = versions.pinned.llamafactory ? undefined : vendoredLlamaFactory(env);
  if (pkg) {
    const misc = env.readFile(join(join(pkg, "extras"), "misc.py"));
    const req = misc ? /(?:require|check)_version\(\s*["'](transformers[^"']{0,300})["']/.exec(misc)?.[1] : undefined;
    if (req) {
      const max = upperOf(req);
      return max ? { max, where: `the workspace's LLaMA-Factory (extras/misc.py) requires ${req}` } : undefined;
    }
    const ver = /VERSION\s*=\s*["']([^"']{1,40})["']/.exec(env.readFile(join(join(pkg, "extras"), "env.py")) ?? "")?.[1];
    if (ver) return byRelease(ver, `the workspace's LLaMA-Factory ${ver} (extras/env.py)`);
  }
  const v = versions.llamafactory.value;
  return byRelease(v, `LLaMA-Factory ${v} (${versions.llamafactory.detail})`);
}

function byRelease(version: string, where: string): TransformersCap | undefined {
  const rel = releaseOf(version);
  // Only a release read: a newer one's bound is not known (it may be higher), an older one has none.
  const hit = UPPER_BY_RELEASE.find(([lf]) => lf === rel);
  return hit ? { max: hit[1], where: `${where} accepts transformers <= ${hit[1]}` } : undefined;
}

/**
 * The exact version of a Python package pinned in the workspace (requirements*.txt, pyproject.toml, uv.lock,
 * poetry.lock, pdm.lock, setup.py (`_deps`), conda-format requirements (`name=1.2.3=build`), setup/install
 * shell scripts, and the `pip install X==V` lines of a Dockerfile or a conda environment.yml: a
 * repository may pin its training stack only there, e.g. flash-attention's training/Dockerfile:81
 * `pip install … pytorch-lightning==1.8.6`), walking up from the config's folder like the torchtitan version inference
 * (version.ts). Used by the YAML frameworks whose rules depend on the library version (torchtune).
 * Only exact pins count (`==X`, a lock entry, a git tag); a range says nothing about the running version.
 * Nothing is executed; files are scanned with regular expressions.
 */
import type { AnalysisEnv } from "../analysis";
import { ancestorDirs, displayPath, join } from "./paths";

export interface PackagePin {
  /** The version as written, without a leading "v": "0.6.1", "0.7.0.dev20250601". */
  version: string;
  /** Where, for messages: "requirements.txt: torchtune==0.6.1". */
  where: string;
}

const LOCKS = ["uv.lock", "poetry.lock", "pdm.lock"];

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** An exact pin of `pkg` in one dependency file's text. */
export function findPackagePin(text: string, pkg: string, lock: boolean): string | undefined {
  const name = escape(pkg);
  // Dependency lines are short; skipping very long ones keeps the regular expressions below linear in practice.
  const lines = text.split(/\r?\n/).map((l) => (l.length > 500 ? "" : l));
  if (lock) {
    for (let i = 0; i < lines.length; i++) {
      if (!new RegExp(`^\\s*name\\s*=\\s*"${name}"\\s*$`, "i").test(lines[i]!)) continue;
      for (let j = i + 1; j < Math.min(lines.length, i + 12) && !/^\s*\[/.test(lines[j]!); j++) {
        const v = /^\s*version\s*=\s*"([^"]+)"/.exec(lines[j]!);
        if (v) return v[1]!.replace(/^v/, "");
      }
    }
    return undefined;
  }
  for (const raw of lines) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    const eq = new RegExp(`(?:^|["'\\s])${name}\\s*(?:\\[[^\\]]*\\]\\s*)?===?\\s*v?([0-9][\\w.+-]*)`, "i").exec(line);
    if (eq) return eq[1]!;
    // A release tag (`@v0.16.0`) or a commit (`@c04e84c4…`, hex; it may start with a letter).
    const git = new RegExp(`/${name}(?:\\.git)?@v?([0-9a-f]{7,40}(?![\\w.-])|[0-9][\\w.-]*)`, "i").exec(line);
    if (git) return git[1]!;
    // conda's `conda list --export` format: `name=1.2.3=build` (one "=").
    const conda = new RegExp(`^${name}=v?([0-9][\\w.+]*)(?:=\\S*)?$`, "i").exec(line);
    if (conda) return conda[1]!;
    const poetry = new RegExp(`^${name}\\s*=\\s*"\\s*(?:==\\s*)?v?([0-9][\\w.+-]*)\\s*"`, "i").exec(line);
    if (poetry) return poetry[1]!;
  }
  return undefined;
}

/** A folder's dependency files, in the order they are consulted. */
function dependencyFiles(env: AnalysisEnv, dir: string): string[] {
  const names = [...env.listDir(dir)].sort();
  return [
    ...names.filter((n) => /^requirements.*\.txt$/i.test(n)),
    ...names.filter((n) => n === "pyproject.toml"),
    ...names.filter((n) => LOCKS.includes(n)),
    ...names.filter((n) => /^(?:Dockerfile|Containerfile)(?:\.[\w-]+)?$|\.[Dd]ockerfile$/.test(n)),
    ...names.filter((n) => /^environment[\w-]*\.ya?ml$/i.test(n)),
    // setup.py (`_deps = ["transformers==4.43.1", …]`) and setup/install shell scripts (`pip install x==v`).
    ...names.filter((n) => n === "setup.py" || /^(?:setup|install)[\w-]*\.sh$/i.test(n)),
  ];
}

/** The nearest exact pin of `pkg` above the document, or undefined. */
export function packagePin(env: AnalysisEnv, pkg: string): PackagePin | undefined {
  for (const dir of ancestorDirs(env)) {
    for (const n of dependencyFiles(env, dir)) {
      const path = join(dir, n);
      const text = env.readFile(path);
      if (text === undefined || text.length > 2_000_000) continue;
      const version = findPackagePin(text, pkg, LOCKS.includes(n));
      if (version) return { version, where: `${displayPath(path, env)}: ${pkg} ${version}` };
    }
  }
  return undefined;
}

/** An upper bound of `pkg` in a requirement line (`transformers>=4.56.0,<5.0.0`, `trl<=0.25`): `<`/`<=` only. */
export function findUpperBound(text: string, pkg: string): { max: string; inclusive: boolean } | undefined {
  const name = escape(pkg);
  const lines = text.split(/\r?\n/).map((l) => (l.length > 500 ? "" : l));
  for (const raw of lines) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    const spec = new RegExp(`(?:^|["'\\s])${name}\\s*(?:\\[[^\\]]*\\]\\s*)?([<>=!~][^"';]*)`, "i").exec(line)?.[1];
    if (!spec) continue;
    const le = /<=\s*v?(\d+(?:\.\d+){0,3})/.exec(spec);
    if (le) return { max: le[1]!, inclusive: true };
    const lt = /<(?!=)\s*v?(\d+(?:\.\d+){0,3})/.exec(spec);
    if (lt) return { max: lt[1]!, inclusive: false };
  }
  return undefined;
}

/**
 * The nearest upper bound of `pkg` above the document (requirements, pyproject.toml, setup.py, environment files):
 * a range is no pin, but no release past its bound can be the one that runs.
 */
export function packageUpperBound(env: AnalysisEnv, pkg: string): { max: string; inclusive: boolean; where: string } | undefined {
  for (const dir of ancestorDirs(env)) {
    // The same files as the pins (a lock or an install script holds exact versions, no range: nothing found there).
    for (const n of dependencyFiles(env, dir)) {
      if (LOCKS.includes(n)) continue;
      const path = join(dir, n);
      const text = env.readFile(path);
      if (text === undefined || text.length > 2_000_000) continue;
      const b = findUpperBound(text, pkg);
      if (b) return { ...b, where: `${displayPath(path, env)}: ${pkg}${b.inclusive ? "<=" : "<"}${b.max}` };
    }
  }
  return undefined;
}

/** True when release `v` is past an upper bound (`<max` excludes max itself). */
export function beyondBound(v: string, b: { max: string; inclusive: boolean }): boolean {
  return b.inclusive ? !versionAtLeast(b.max, v) : versionAtLeast(v, b.max);
}

/** Compares dotted release numbers ("0.6.1" < "0.7.0"); pre-release/dev suffixes count as that release. */
export function versionAtLeast(version: string, min: string): boolean {
  const nums = (s: string) => s.split(/[.+-]/).slice(0, 3).map((x) => Number.parseInt(x, 10) || 0);
  const a = nums(version);
  const b = nums(min);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

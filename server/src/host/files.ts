/**
 * Reading the CLI's input safely from a repository that may be hostile (CI checks untrusted pull
 * requests): only regular files, each real folder once, a hard byte cap on every read whatever `stat`
 * says, and no blocking on FIFOs. Linear in the number of entries walked.
 */
import { closeSync, constants, fstatSync, openSync, readSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { extname, relative, resolve, sep } from "node:path";

/** Extensions `check` picks up when walking a folder. */
export const CONFIG_EXTENSIONS = new Set([".toml", ".yaml", ".yml", ".json", ".sh", ".bash", ".slurm", ".sbatch"]);
/**
 * Folders never walked into (dependencies, VCS metadata, build output, virtualenvs); `--verbose` names each
 * one passed over. `out` is walked: litgpt writes the configs of a run there (`out/finetune/…/*.yaml`).
 */
export const SKIP_DIRS = new Set(["node_modules", ".git", ".hg", ".svn", "dist", "__pycache__", ".venv", "venv"]);
/** Files over this many bytes are not analysed (reported, never read past the limit). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What a non-regular file is, in words ("a FIFO (named pipe)", "a character device", ...). */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a folder";
  if (st.isSymbolicLink()) return "a symbolic link";
  return st.isFile() ? "a regular file" : "not a regular file";
}

export interface WalkProblem {
  path: string;
  error: string;
}

export interface Collected {
  /**
   * Absolute paths of the config files to check, in walk order (sorted names, depth first). A path that is
   * not valid UTF-8 is shown with its bad bytes as `\xNN` (`displayPath`); its real bytes are in `raw`.
   */
  files: string[];
  /** The real path (bytes) of each file of `files` whose name is not valid UTF-8. */
  raw: Map<string, Buffer>;
  /** Inputs that make the run fail (exit 2): missing paths, explicit special files, unreadable folders, paths too long. */
  errors: WalkProblem[];
  /** Entries passed over while walking (special files, symlink cycles, broken links, links out of the tree, skipped folders): shown with --verbose. */
  skipped: WalkProblem[];
}

/** A path's bytes as text: valid UTF-8 as is, each invalid byte as `\xNN` (so it can be shown and told apart). */
export function displayPath(b: Buffer): string {
  let out = "";
  let rest = b;
  for (;;) {
    const bad = firstInvalidUtf8(rest);
    if (bad < 0) return out + rest.toString("utf8");
    out += `${rest.subarray(0, bad).toString("utf8")}\\x${rest[bad]!.toString(16).padStart(2, "0")}`;
    rest = rest.subarray(bad + 1);
  }
}

const SEP = Buffer.from(sep);

/** `inner` is `outer` or lies under it (whole path parts: `/ws/proj-x` is not under `/ws/proj`). */
function within(inner: Buffer, outer: Buffer): boolean {
  if (inner.equals(outer)) return true;
  const base = outer.length && outer[outer.length - 1] === SEP[0] ? outer : Buffer.concat([outer, SEP]);
  return inner.length > base.length && inner.subarray(0, base.length).equals(base);
}

/**
 * The files `check` analyses for one command-line path. `seen` (dev:inode of folders and files already
 * visited) is shared across the paths of one run, so a folder reached twice (a symlink cycle, `ln -s ..`,
 * the same folder named twice) is walked once and a file is checked once. The walk stays in the tree it was
 * given: a symbolic link whose target is outside it (`ln -s / rootfs`) is skipped, not followed (named with
 * --verbose); a path named on the command line is followed wherever it points. Names are read as bytes, so
 * a file whose name is not valid UTF-8 is still found and checked.
 */
export function collectConfigs(root: string, cwd: string, seen: Set<string> = new Set()): Collected {
  const out: Collected = { files: [], raw: new Map(), errors: [], skipped: [] };
  const abs = resolve(cwd, root);
  const shownText = (t: string): string => relative(cwd, t) || t;
  const shown = (p: Buffer): string => shownText(displayPath(p));
  let st: Stats;
  try {
    st = statSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    out.errors.push({ path: root, error: code === "ENOENT" || code === "ENOTDIR" ? "no such file or folder" : code === "ELOOP" ? "a symbolic link loop" : code === "ENAMETOOLONG" ? TOO_LONG : `cannot read (${(e as Error).message})` });
    return out;
  }
  if (st.isFile()) {
    if (markSeen(seen, st)) out.files.push(abs);
    return out;
  }
  if (!st.isDirectory()) {
    out.errors.push({ path: root, error: `is ${kindOf(st)}, not a regular file; precision-lens reads only regular files` });
    return out;
  }
  if (!markSeen(seen, st)) return out;
  let tree: Buffer;
  try {
    tree = realpathSync(abs, { encoding: "buffer" });
  } catch (e) {
    out.errors.push({ path: root, error: `cannot read folder (${(e as Error).message})` });
    return out;
  }
  const leaves = (kind: string): string => `skipped: a symbolic link to ${kind} outside the tree being checked (${root})`;
  // Iterative depth-first walk (a deep tree cannot overflow the stack); names sorted for stable output.
  const stack: Buffer[] = [Buffer.from(abs)];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: Dirent<Buffer>[];
    try {
      entries = readdirSync(dir, { withFileTypes: true, encoding: "buffer" });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      out.errors.push({ path: shown(dir), error: code === "ENAMETOOLONG" ? TOO_LONG : `cannot read folder (${code ?? (e as Error).message})` });
      continue;
    }
    const named = entries.map((ent) => ({ ent, n: displayPath(ent.name) }));
    named.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    const subdirs: Buffer[] = [];
    for (const { ent, n } of named) {
      const p = Buffer.concat([dir, SEP, ent.name]);
      // Python is walked only for torchtitan's registry name; any other module is checked when named.
      const wanted = (CONFIG_EXTENSIONS.has(extname(n).toLowerCase()) && n !== "package-lock.json") || n === "config_registry.py";
      // Only symlinks, names we would analyse and entries of unknown type (file systems that do not report
      // it in readdir) need a stat: the walk stays one readdir per folder.
      const known = ent.isFile() || ent.isDirectory() || ent.isSymbolicLink() || ent.isFIFO() || ent.isSocket() || ent.isCharacterDevice() || ent.isBlockDevice();
      if (ent.isDirectory()) {
        if (SKIP_DIRS.has(n)) {
          out.skipped.push({ path: shown(p), error: SKIPPED_DIR });
          continue;
        }
      } else if (known && !ent.isSymbolicLink() && !(wanted && ent.isFile())) {
        if (wanted) out.skipped.push({ path: shown(p), error: `skipped: not a regular file` });
        continue;
      }
      let s: Stats;
      let target = p;
      try {
        // A link is resolved first: where it points decides whether it is followed at all.
        if (ent.isSymbolicLink()) target = realpathSync(p, { encoding: "buffer" });
        s = statSync(target);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENAMETOOLONG" && !ent.isSymbolicLink()) out.errors.push({ path: shown(p), error: TOO_LONG });
        else out.skipped.push({ path: shown(p), error: `skipped: ${code === "ELOOP" ? "a symbolic link loop" : code === "ENOENT" ? "a broken symbolic link" : code === "ENAMETOOLONG" ? "a symbolic link whose target is a path too long for this system (ENAMETOOLONG)" : `cannot read (${(e as Error).message})`}` });
        continue;
      }
      if (ent.isSymbolicLink() && (s.isDirectory() || (wanted && s.isFile())) && !within(target, tree)) {
        out.skipped.push({ path: shown(p), error: leaves(s.isDirectory() ? "a folder" : "a file") });
        continue;
      }
      if (s.isDirectory()) {
        if (SKIP_DIRS.has(n)) {
          out.skipped.push({ path: shown(p), error: SKIPPED_DIR });
          continue;
        }
        if (markSeen(seen, s)) subdirs.push(p);
        else out.skipped.push({ path: shown(p), error: "skipped: a folder already walked (symbolic link cycle or repeat)" });
      } else if (wanted) {
        if (!s.isFile()) out.skipped.push({ path: shown(p), error: `skipped: ${kindOf(s)}, not a regular file` });
        else if (markSeen(seen, s)) {
          const text = displayPath(p);
          out.files.push(text);
          if (firstInvalidUtf8(p) >= 0) out.raw.set(text, p);
        } else out.skipped.push({ path: shown(p), error: "skipped: the same file as one already checked (a link)" });
      }
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  return out;
}

const TOO_LONG = "path too long for this system (ENAMETOOLONG); not read";
const SKIPPED_DIR = "skipped: a dependency, version-control, build or virtualenv folder";

function markSeen(seen: Set<string>, st: Stats): boolean {
  const key = `${st.dev}:${st.ino}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

export type ReadOutcome =
  | { ok: true; bytes: Buffer; mtimeMs: number; size: number }
  | { ok: false; error: string; tooLarge?: { limit: number; size: string } };

/**
 * Reads a file with a hard cap of `maxBytes`, whatever `stat` says (a link to /dev/zero has size 0). Opens
 * non-blocking so a file swapped for a FIFO after the walk cannot hang the run, and refuses anything but a
 * regular file after opening (fstat of the open descriptor, so no race with the walk's stat).
 */
export function readBounded(path: string | Buffer, maxBytes = MAX_FILE_BYTES): ReadOutcome {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { ok: false, error: `cannot read (${(e as Error).message})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, error: `is ${kindOf(st)}, not a regular file; precision-lens reads only regular files` };
    if (st.size > maxBytes) return { ok: false, error: `file is ${st.size} bytes, over the ${maxBytes}-byte limit; not analysed`, tooLarge: { limit: maxBytes, size: String(st.size) } };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes) return { ok: false, error: `file is over the ${maxBytes}-byte limit; not analysed`, tooLarge: { limit: maxBytes, size: `more than ${maxBytes}` } };
    }
    return { ok: true, bytes: Buffer.concat(chunks, total), mtimeMs: st.mtimeMs, size: st.size };
  } catch (e) {
    return { ok: false, error: `cannot read (${(e as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

/** Byte offset of the first invalid UTF-8 sequence, or -1 when `b` is valid UTF-8 (WHATWG rules). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const x = b[i + k];
      if (x === undefined) return i;
      if (k === 1 ? x < lo || x > hi : x < 0x80 || x > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** Decodes UTF-8 keeping a BOM (so --fix writes it back), replacing invalid bytes with U+FFFD. */
export function decodeUtf8(b: Uint8Array): string {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(b);
}

/**
 * Runs a CommonJS bundle (dist/cli-main.js, dist/server-main.js) from a V8 code cache (issue #21): the bundle is compiled with
 * `vm.Script` and `cachedData`, so a later run skips parsing and compiling what an earlier run compiled
 * (~35 ms of the CLI's ~140 ms start on this machine).
 *
 * The cache is a speed-up only, never a reason to fail or to run other code:
 * - where: `$XDG_CACHE_HOME/precision-lens/` (an absolute XDG_CACHE_HOME only), else `~/.cache/precision-lens/`;
 *   created 0700; used only when it is a real folder (no symbolic link) owned by this user and closed to
 *   group and others, and the cache file a regular file owned by this user. Any doubt (Windows, no uid, other
 *   owner, open mode, symbolic link, unreadable, oversized) means no cache for this run.
 * - key: a 128-bit hash of the bundle file's identity (device, inode, size, modification and change times in
 *   nanoseconds), the Node version, V8 version and architecture, so a rebuilt or reinstalled bundle (a new
 *   change time, which no program can set back) or another Node never reads data meant for something else;
 *   V8 checks the data again (its version, flags and the source's length) and reports `cachedDataRejected`,
 *   after which the data is ignored and written afresh. The file's identity instead of a SHA-256 of its text
 *   spares every start loading node:crypto and hashing 1 MB (~4 ms of a ~120 ms single-file run). The
 *   identity is taken before and after the read from the same open file; a bundle that changed in between
 *   runs without a cache (so does one that is not valid UTF-8). ASSUMPTION (code-cache-file-identity): a
 *   bundle is not rewritten in place with text of the same length within one tick of the file system's
 *   clock (a few milliseconds where timestamps are coarse) after a run read the earlier text; a build or an
 *   install takes far longer than a tick, and an install that replaces the file also changes its inode.
 * - verified before use (issue #33): the file is a header (magic, payload length, a 128-bit hash of the
 *   payload: `sealCache`) and the payload; a file whose length, magic or hash does not match (a flipped bit,
 *   a payload zeroed by a crash, a truncated write) is not given to V8 at all and is written afresh. Only a
 *   regular file is read, opened non-blocking (a FIFO in its place is refused at once, never waited on).
 *   The hash is not cryptographic: it finds corruption; whoever can write the private folder already runs
 *   as this user.
 * - written once (when missing, rejected or corrupt), after the run, to a temporary file that is fsynced
 *   and then renamed into place; every error (read-only home, full disk, a race with another run) is
 *   swallowed.
 * - off: `PRECISION_LENS_NO_CODE_CACHE=1`. `PRECISION_LENS_CODE_CACHE_DEBUG=1` says on stderr what happened.
 */
import { closeSync, fsyncSync, fstatSync, type BigIntStats, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, unlinkSync, writeSync, constants } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { Script } from "node:vm";

/** Cache data larger than this is not read (a bundle's data is ~1 MB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** Caches of other bundles (older builds, other Node versions) kept beside the current one. */
const KEEP_OTHERS = 2;

export interface CacheOptions {
  /** Cache file name prefix: "cli". */
  name: string;
  env?: NodeJS.ProcessEnv;
  /** False for runs that compile little beyond the top level (`--version`): they do not write the cache. */
  worthWriting?: boolean;
  /**
   * A long-running process (the language server) writes the cache this many milliseconds after start
   * (an unref'd timer: it never keeps the process alive), or at exit if that comes first.
   */
  writeAfterMs?: number;
}

/**
 * A 128-bit hash of `text` as 32 hex digits: four 32-bit FNV-1a lanes with different offsets, each finished
 * with a murmur-style avalanche. Not cryptographic; it only names a cache file after a short, trusted key.
 */
export function hash128(text: string): string {
  const lanes = [0x811c9dc5, 0x050c5d1f, 0x2b5c1e3d, 0x6a09e667];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    for (let l = 0; l < 4; l++) lanes[l] = Math.imul(lanes[l]! ^ c, 0x01000193 + 2 * l);
  }
  return lanes
    .map((h, l) => {
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b + l);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      return (h >>> 0).toString(16).padStart(8, "0");
    })
    .join("");
}

/** The cache file's first bytes: format name and version. */
const MAGIC = Buffer.from("PLCC\u0001\u0000\u0000\u0000", "latin1");
/** Magic (8 bytes), payload length (4 bytes, little endian), hash of the payload (16 bytes). */
const HEADER_BYTES = 28;

/** A 128-bit hash of bytes (four 32-bit lanes over 32-bit words, murmur-style finish): ~1 ms a MB. */
export function hashBytes(buf: Uint8Array): Buffer {
  const words = buf.length >>> 2;
  const aligned = buf.byteOffset % 4 === 0 ? buf : Uint8Array.from(buf);
  const w = new Uint32Array(aligned.buffer, aligned.byteOffset, words);
  let a = 0x811c9dc5 ^ buf.length;
  let b = 0x050c5d1f;
  let c = 0x2b5c1e3d;
  let d = 0x6a09e667;
  let i = 0;
  for (; i + 4 <= words; i += 4) {
    a = Math.imul((a ^ w[i]!) << 13 | (a ^ w[i]!) >>> 19, 0x9e3779b1);
    b = Math.imul((b ^ w[i + 1]!) << 15 | (b ^ w[i + 1]!) >>> 17, 0x85ebca77);
    c = Math.imul((c ^ w[i + 2]!) << 17 | (c ^ w[i + 2]!) >>> 15, 0xc2b2ae3d);
    d = Math.imul((d ^ w[i + 3]!) << 19 | (d ^ w[i + 3]!) >>> 13, 0x27d4eb2f);
  }
  for (; i < words; i++) a = Math.imul(a ^ w[i]!, 0x01000193);
  for (let j = words * 4; j < buf.length; j++) b = Math.imul(b ^ buf[j]!, 0x01000193);
  const out = Buffer.alloc(16);
  const lanes = [a, b, c, d];
  for (let l = 0; l < 4; l++) {
    // Each lane is finished with all four mixed in, so a change in any word reaches every output word.
    let h = (lanes[l]! ^ Math.imul(lanes[(l + 1) % 4]!, 0x01000193) ^ Math.imul(lanes[(l + 2) % 4]!, 0x85ebca6b) ^ lanes[(l + 3) % 4]! >>> 7) >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b + l);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    out.writeUInt32LE(h >>> 0, l * 4);
  }
  return out;
}

/** The bytes written to a cache file: header (magic, length, hash) then `payload`. */
export function sealCache(payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.length, 8);
  hashBytes(payload).copy(header, 12);
  return Buffer.concat([header, payload]);
}

/** The payload of a cache file's bytes when its header matches them exactly; undefined for anything else. */
export function openCache(file: Buffer): Buffer | undefined {
  if (file.length < HEADER_BYTES || !file.subarray(0, 8).equals(MAGIC)) return undefined;
  if (file.readUInt32LE(8) !== file.length - HEADER_BYTES) return undefined;
  const payload = file.subarray(HEADER_BYTES);
  return hashBytes(payload).equals(file.subarray(12, HEADER_BYTES)) ? payload : undefined;
}

/**
 * The bundle's text and its cache key (its file identity and the runtime's), from one open file: stat'ed
 * before and after the read, so a bundle rewritten during the read (a build or an install racing this start)
 * gets no key rather than a key of the other version. The key is undefined then, or when anything fails.
 */
export function readBundle(bundlePath: string, name: string): { source: string; key?: string } {
  const fd = openSync(bundlePath, constants.O_RDONLY);
  try {
    const id = (st: BigIntStats) => [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join("\0");
    const before = fstatSync(fd, { bigint: true });
    const source = readFileSync(fd, "utf8");
    const after = fstatSync(fd, { bigint: true });
    const same = id(before) === id(after) && BigInt(Buffer.byteLength(source)) === before.size;
    return same ? { source, key: hash128([id(before), process.version, process.versions.v8, process.arch, name].join("\0")) } : { source };
  } finally {
    closeSync(fd);
  }
}

/** The private cache folder, created if needed; undefined when there is any doubt about it. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, why: (s: string) => void = () => {}): string | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") return void why("no uid to check ownership against");
  const xdg = env.XDG_CACHE_HOME;
  let base: string;
  try {
    base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  } catch {
    return void why("no home folder");
  }
  const dir = join(base, "precision-lens");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return void why(`${dir} is not a folder`);
    if (st.uid !== process.getuid()) return void why(`${dir} is owned by another user`);
    if ((st.mode & 0o077) !== 0) return void why(`${dir} is open to group or others (mode ${(st.mode & 0o777).toString(8)})`);
    return dir;
  } catch (e) {
    return void why(`${dir}: ${(e as Error).message}`);
  }
}

/** The cached data at `file` when it is a regular file of ours; undefined otherwise. */
function readCache(file: string, why: (s: string) => void): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid?.() || st.size > MAX_CACHE_BYTES) return void why(`${file} is not a regular file of this user's`);
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got !== st.size) return void why(`${file} changed while it was read`);
    const payload = openCache(buf);
    return payload ?? void why(`${file} does not match its header (length, format or hash): corrupt`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") why(`${file}: ${(e as Error).message}`);
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `data` to `file` through a temporary file in the same folder; false on any error. */
function writeCache(dir: string, file: string, data: Buffer, prefix: string): boolean {
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    let off = 0;
    const sealed = sealCache(data);
    while (off < sealed.length) off += writeSync(fd, sealed, off, sealed.length - off);
    // On disk before the rename: a crash leaves the old file or the whole new one, never a zeroed one.
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // Nothing was created, or it cannot be removed: either way nothing to do.
    }
    return false;
  }
  pruneOthers(dir, file, prefix);
  return true;
}

/** Removes this bundle kind's caches for other keys, keeping the KEEP_OTHERS most recent. */
function pruneOthers(dir: string, current: string, prefix: string): void {
  try {
    const re = new RegExp(`^${prefix}-[0-9a-f]{32}\\.bin$`);
    const others = readdirSync(dir)
      .filter((n) => re.test(n) && join(dir, n) !== current)
      .map((n) => ({ path: join(dir, n), mtime: lstatSync(join(dir, n)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const o of others.slice(KEEP_OTHERS)) unlinkSync(o.path);
  } catch {
    // Pruning is housekeeping only.
  }
}

/**
 * Loads and runs the CommonJS bundle at `bundlePath` as the main program, from the code cache when there is
 * a usable one. The bundle sees the usual module arguments (its own require, module, __filename, __dirname).
 */
export function runBundle(bundlePath: string, opts: CacheOptions): void {
  const env = opts.env ?? process.env;
  const debug = env.PRECISION_LENS_CODE_CACHE_DEBUG === "1";
  const say = (s: string) => {
    if (debug) process.stderr.write(`precision-lens code cache: ${s}\n`);
  };
  const bundle = readBundle(bundlePath, opts.name);
  const source = bundle.source.replace(/^#!.*/, "");
  const off = !!env.PRECISION_LENS_NO_CODE_CACHE && env.PRECISION_LENS_NO_CODE_CACHE !== "0";
  let dir: string | undefined;
  let file: string | undefined;
  let data: Buffer | undefined;
  if (off) say("off (PRECISION_LENS_NO_CODE_CACHE)");
  else {
    dir = cacheDir(env, (s) => say(`not used: ${s}`));
    if (dir && !bundle.key) say("not used: the bundle changed while it was read (or is not valid UTF-8)");
    if (dir && bundle.key) {
      file = join(dir, `${opts.name}-${bundle.key}.bin`);
      data = readCache(file, (s) => say(`not used: ${s}`));
    }
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: bundlePath, ...(data ? { cachedData: data } : {}) });
  const rejected = data !== undefined && script.cachedDataRejected === true;
  if (file) say(data ? (rejected ? `rejected by V8: ${file}` : `hit ${file}`) : `miss: ${file}`);
  if (dir && file && (!data || rejected) && opts.worthWriting !== false) {
    const d = dir;
    const f = file;
    // After the run, so that the data holds every function the run compiled, not only the top level.
    let done = false;
    const write = () => {
      if (done) return;
      done = true;
      try {
        const ok = writeCache(d, f, script.createCachedData(), opts.name);
        say(ok ? `written ${f}` : `could not write ${f}`);
      } catch {
        say(`could not write ${f}`);
      }
    };
    process.once("exit", write);
    if (opts.writeAfterMs !== undefined) setTimeout(write, opts.writeAfterMs).unref();
  }
  const fn = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: Module, filename: string, dirname: string) => void;
  const mod = new Module(bundlePath, require.main ?? undefined);
  mod.filename = bundlePath;
  const req = createRequire(bundlePath);
  fn.call(mod.exports, mod.exports, req, mod, bundlePath, dirname(bundlePath));
}

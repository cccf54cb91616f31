/**
 * `check --fix` writes through here: the original is replaced atomically or not at all.
 *  - the new bytes go to a temporary file in the same folder, are fsync'ed, and renamed over the original,
 *    so a reader sees the old file or the new one, never a truncated one, and a full disk (ENOSPC) leaves
 *    the original untouched;
 *  - a symbolic link stays a link: the file it points to is replaced (the link's target path);
 *  - mode and owner are kept (the temporary file gets them before the rename; if the owner cannot be kept,
 *    nothing is written);
 *  - a file with several hard links is not replaced (a rename would split the links) — reported instead;
 *  - just before the rename the file is compared with what was read (bytes, size, mtime): if someone edited
 *    it meanwhile, nothing is written and the caller says so.
 * The file-system calls are injectable so tests can simulate a failing write (ENOSPC) without a full disk.
 */
import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";

export interface ReplaceFs {
  realpathSync(p: string): string;
  statSync(p: string): nodeFs.Stats;
  readFileSync(p: string): Buffer;
  openSync(p: string, flags: string, mode: number): number;
  writeSync(fd: number, b: Buffer, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  chmodSync(p: string, mode: number): void;
  chownSync(p: string, uid: number, gid: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(p: string): void;
}

export const NODE_FS: ReplaceFs = {
  realpathSync: (p) => nodeFs.realpathSync(p),
  statSync: (p) => nodeFs.statSync(p),
  readFileSync: (p) => nodeFs.readFileSync(p),
  openSync: (p, f, m) => nodeFs.openSync(p, f, m),
  writeSync: (fd, b, o, l) => nodeFs.writeSync(fd, b, o, l),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  closeSync: (fd) => nodeFs.closeSync(fd),
  chmodSync: (p, m) => nodeFs.chmodSync(p, m),
  chownSync: (p, u, g) => nodeFs.chownSync(p, u, g),
  renameSync: (a, b) => nodeFs.renameSync(a, b),
  unlinkSync: (p) => nodeFs.unlinkSync(p),
};

/** What the caller read: the file is replaced only if it still is exactly this. */
export interface ReadState {
  bytes: Uint8Array;
  mtimeMs: number;
  size: number;
}

export type ReplaceOutcome = { ok: true } | { ok: false; changed?: boolean; error: string };

let counter = 0;

export function replaceFileAtomically(path: string, data: Uint8Array, expected: ReadState, fs: ReplaceFs = NODE_FS): ReplaceOutcome {
  let target: string;
  let st: nodeFs.Stats;
  try {
    target = fs.realpathSync(path);
    st = fs.statSync(target);
  } catch (e) {
    return { ok: false, error: `cannot write the fixed file (${(e as Error).message}); nothing was written` };
  }
  if (!st.isFile()) return { ok: false, error: "cannot write the fixed file: it is no longer a regular file; nothing was written" };
  if (st.nlink > 1) return { ok: false, error: `not rewritten: the file has ${st.nlink} hard links, and replacing it atomically would split them; apply the fixes by hand` };
  const unchanged = (): boolean => {
    const now = fs.statSync(target);
    if (now.size !== expected.size || now.mtimeMs !== expected.mtimeMs) return false;
    return Buffer.from(fs.readFileSync(target)).equals(Buffer.from(expected.bytes));
  };
  try {
    if (!unchanged()) return { ok: false, changed: true, error: "not rewritten: the file changed while precision-lens was checking it; run --fix again" };
  } catch (e) {
    return { ok: false, error: `cannot write the fixed file (${(e as Error).message}); nothing was written` };
  }
  const tmp = join(dirname(target), `.${basename(target)}.precision-lens-${process.pid}-${++counter}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, "wx", st.mode & 0o777);
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, Buffer.from(data.buffer, data.byteOffset, data.byteLength), off, data.length - off);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.chmodSync(tmp, st.mode & 0o7777);
    const owner = fs.statSync(tmp);
    if (owner.uid !== st.uid || owner.gid !== st.gid) fs.chownSync(tmp, st.uid, st.gid);
    if (!unchanged()) {
      fs.unlinkSync(tmp);
      return { ok: false, changed: true, error: "not rewritten: the file changed while precision-lens was checking it; run --fix again" };
    }
    fs.renameSync(tmp, target);
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* the temporary file may not exist */
    }
    return { ok: false, error: `cannot write the fixed file (${(e as Error).message}); the original is untouched` };
  }
  fsyncDir(dirname(target));
  return { ok: true };
}

/** Makes the rename durable; best effort (not every platform lets a folder be opened). */
function fsyncDir(dir: string): void {
  try {
    const fd = nodeFs.openSync(dir, "r");
    try {
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
  } catch {
    /* not supported here */
  }
}

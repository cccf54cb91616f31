/**
 * dist/cli.js runs the CLI bundle from a V8 code cache (server/src/host/codeCache.ts, issue #21). The cache
 * is a speed-up only: output and exit code are the same with it, without it, and whatever state the cache
 * folder is in (missing, unusable, not ours, corrupt, unwritable); it lives in a private folder and is
 * written atomically. Spawns the built bundle (npm run build first); the speed itself is in test/bench/.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, utimesSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { hash128, hashBytes, openCache, readBundle, sealCache } from "../server/src/host/codeCache";
import { execFileSync } from "node:child_process";

const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "dist", "cli.js");
const SEED = join(ROOT, "examples", "tp_only_8gpu.toml");
const have = existsSync(CLI) && existsSync(join(ROOT, "dist", "cli-main.js"));
const skip = have ? false : "dist/cli.js or dist/cli-main.js absent: run npm run build";
const tmp = mkdtempSync(join(tmpdir(), "pl-code-cache-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function freshHome(): { home: string; xdg: string; dir: string } {
  const home = join(tmp, `h${n++}`);
  mkdirSync(home);
  const xdg = join(home, "xdg");
  return { home, xdg, dir: join(xdg, "precision-lens") };
}

function run(env: Record<string, string>, args = ["check", "--format", "json", SEED], cli = CLI) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "", PRECISION_LENS_CODE_CACHE_DEBUG: "1", ...env } });
  const notes = r.stderr.split("\n").filter((l) => l.startsWith("precision-lens code cache: "));
  const err = r.stderr.split("\n").filter((l) => l && !l.startsWith("precision-lens code cache: ")).join("\n");
  return { code: r.status, out: r.stdout, err, notes: notes.map((l) => l.slice("precision-lens code cache: ".length)) };
}

const bins = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^cli-[0-9a-f]{32}\.bin$/.test(f)) : []);

describe("CLI code cache", { skip }, () => {
  const reference = have ? run({ PRECISION_LENS_NO_CODE_CACHE: "1", HOME: tmp }) : { code: 0, out: "", err: "", notes: [] };

  it("off: PRECISION_LENS_NO_CODE_CACHE=1 creates nothing and says so", () => {
    const { home, xdg } = freshHome();
    assert.deepEqual(reference.notes, ["off (PRECISION_LENS_NO_CODE_CACHE)"]);
    const r = run({ PRECISION_LENS_NO_CODE_CACHE: "1", HOME: home, XDG_CACHE_HOME: xdg });
    assert.equal(r.out, reference.out);
    assert.equal(existsSync(xdg), false);
  });

  it("a miss writes the cache (0700 folder, 0600 file), the next run hits it; output identical", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    const ver = run(env, ["--version"]);
    assert.equal(ver.code, 0);
    assert.match(ver.out, /^precision-lens \d+\.\d+\.\d+/);
    assert.deepEqual(bins(dir), [], "--version leaves the writing to a run that analyses");
    const first = run(env);
    assert.equal(first.code, reference.code);
    assert.equal(first.out, reference.out);
    assert.equal(first.err, reference.err);
    const [bin] = bins(dir);
    assert.ok(bin, "a cache file was written");
    assert.deepEqual(first.notes, [`miss: ${join(dir, bin)}`, `written ${join(dir, bin)}`]);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, bin)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), [bin], "no temporary file left behind");
    const second = run(env);
    assert.deepEqual(second.notes, [`hit ${join(dir, bin)}`]);
    assert.equal(second.out, reference.out);
    assert.equal(second.code, reference.code);
  });

  it("without XDG_CACHE_HOME (or with a relative one): ~/.cache/precision-lens", () => {
    const { home } = freshHome();
    const r = run({ HOME: home, XDG_CACHE_HOME: "relative/cache" });
    assert.equal(r.out, reference.out);
    assert.equal(bins(join(home, ".cache", "precision-lens")).length, 1);
    assert.equal(existsSync(join(ROOT, "relative")), false);
  });

  it("corrupt data: never handed to V8, the run is unaffected, the data is rewritten", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    run(env);
    const [bin] = bins(dir);
    const file = join(dir, bin!);
    writeFileSync(file, Buffer.alloc(4096, 0x5a), { mode: 0o600 });
    const r = run(env);
    assert.deepEqual(r.notes, [`not used: ${file} does not match its header (length, format or hash): corrupt`, `miss: ${file}`, `written ${file}`]);
    assert.equal(r.out, reference.out);
    assert.notEqual(readFileSync(file)[0], 0x5a);
    assert.deepEqual(run(env).notes, [`hit ${file}`]);
  });

  /** Issue #33: bit flips, a zeroed payload (a crash before the data reached the disk), a truncated file, a FIFO. */
  it("flipped bits, a zeroed payload, a truncated file and a FIFO: same output and exit code, no crash, no hang; rewritten", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    run(env);
    const [bin] = bins(dir);
    const file = join(dir, bin!);
    const good = readFileSync(file);
    const damaged: [string, (b: Buffer) => Buffer][] = [];
    // Positions spread over the header and the payload (deterministic: no seed needed).
    for (const at of [0, 5, 8, 11, 12, 27, 28, 29, 64, 1000, Math.floor(good.length / 3), Math.floor(good.length / 2), good.length - 100, good.length - 1]) {
      damaged.push([`bit ${at * 8 + (at % 8)} flipped`, (b) => ((b[at] = b[at]! ^ (1 << (at % 8))), b)]);
    }
    damaged.push(["payload zeroed", (b) => b.fill(0, 28)]);
    damaged.push(["whole file zeroed", (b) => b.fill(0)]);
    damaged.push(["truncated to half", (b) => b.subarray(0, b.length >> 1)]);
    damaged.push(["header only", (b) => b.subarray(0, 28)]);
    for (const [what, damage] of damaged) {
      writeFileSync(file, damage(Buffer.from(good)), { mode: 0o600 });
      const r = run(env);
      assert.equal(r.code, reference.code, what);
      assert.equal(r.out, reference.out, what);
      assert.equal(r.err, "", what);
      assert.match(r.notes[0] ?? "", /does not match its header/, `${what}: ${r.notes.join(" / ")}`);
      assert.ok(openCache(readFileSync(file)), `${what}: rewritten whole`);
    }
    rmSync(file);
    execFileSync("mkfifo", [file]);
    const r = spawnSync(process.execPath, [CLI, "check", "--format", "json", SEED], { cwd: ROOT, encoding: "utf8", timeout: 20_000, env: { PATH: process.env.PATH ?? "", PRECISION_LENS_CODE_CACHE_DEBUG: "1", ...env } });
    assert.equal(r.signal, null, "a FIFO in the cache's place must not hang the start");
    assert.equal(r.stdout, reference.out);
    assert.match(r.stderr, /is not a regular file of this user's/);
  });

  it("a folder open to group or others is not used (nothing read or written)", () => {
    const { home, xdg, dir } = freshHome();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    const r = run({ HOME: home, XDG_CACHE_HOME: xdg });
    assert.deepEqual(r.notes, [`not used: ${dir} is open to group or others (mode 777)`]);
    assert.equal(r.out, reference.out);
    assert.deepEqual(readdirSync(dir), []);
  });

  it("a folder owned by another user is not used", { skip: process.getuid?.() === 0 ? false : "needs root to chown" }, () => {
    const { home, xdg, dir } = freshHome();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownSync(dir, 65534, 65534);
    const r = run({ HOME: home, XDG_CACHE_HOME: xdg });
    assert.deepEqual(r.notes, [`not used: ${dir} is owned by another user`]);
    assert.equal(r.out, reference.out);
    assert.deepEqual(readdirSync(dir), []);
  });

  it("a symbolic link as the folder is not used", () => {
    const { home, xdg, dir } = freshHome();
    const elsewhere = join(home, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(xdg);
    symlinkSync(elsewhere, dir);
    const r = run({ HOME: home, XDG_CACHE_HOME: xdg });
    assert.deepEqual(r.notes, [`not used: ${dir} is not a folder`]);
    assert.equal(r.out, reference.out);
    assert.deepEqual(readdirSync(elsewhere), []);
  });

  it("a symbolic link as the cache file is not followed; it is replaced, its target untouched", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    run(env);
    const [bin] = bins(dir);
    const file = join(dir, bin!);
    const target = join(home, "target");
    writeFileSync(target, "not a cache");
    rmSync(file);
    symlinkSync(target, file);
    const r = run(env);
    assert.equal(r.notes.length, 3);
    assert.match(r.notes[0]!, /^not used: .*cli-[0-9a-f]{32}\.bin: ELOOP/);
    assert.deepEqual(r.notes.slice(1), [`miss: ${file}`, `written ${file}`]);
    assert.equal(r.out, reference.out);
    assert.equal(readFileSync(target, "utf8"), "not a cache");
  });

  it("the cache cannot be created (XDG_CACHE_HOME under a regular file): no cache, same run", () => {
    const { home } = freshHome();
    writeFileSync(join(home, "file"), "");
    const r = run({ HOME: home, XDG_CACHE_HOME: join(home, "file", "cache") });
    assert.equal(r.notes.length, 1);
    assert.match(r.notes[0]!, /^not used: .*file\/cache\/precision-lens: ENOTDIR/);
    assert.equal(r.out, reference.out);
    assert.equal(r.code, reference.code);
  });

  it("the cache cannot be written (its name taken by a folder): the run is unaffected, no temporary file left", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    run(env);
    const [bin] = bins(dir);
    const file = join(dir, bin!);
    rmSync(file);
    mkdirSync(join(file, "x"), { recursive: true });
    const r = run(env);
    assert.deepEqual(r.notes, [`not used: ${file} is not a regular file of this user's`, `miss: ${file}`, `could not write ${file}`]);
    assert.equal(r.out, reference.out);
    assert.equal(r.code, reference.code);
    assert.deepEqual(readdirSync(dir), [bin]);
  });

  it("the bundle rewritten in place with text of the same length (same inode, same size) gets a new cache file", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    const copy = join(home, "dist");
    mkdirSync(copy);
    copyFileSync(CLI, join(copy, "cli.js"));
    const main = join(copy, "cli-main.js");
    const text = readFileSync(join(ROOT, "dist", "cli-main.js"), "utf8");
    writeFileSync(main, text + "\n// build A\n");
    const a = run(env, undefined, join(copy, "cli.js"));
    const [first] = bins(dir);
    assert.ok(first, "the first run wrote a cache file");
    assert.deepEqual(a.notes, [`miss: ${join(dir, first)}`, `written ${join(dir, first)}`]);
    assert.match(run(env, undefined, join(copy, "cli.js")).notes[0] ?? "", /^hit /);
    const ino = statSync(main).ino;
    writeFileSync(main, text + "\n// build B\n");
    assert.equal(statSync(main).ino, ino, "rewritten in place");
    const r = run(env, undefined, join(copy, "cli.js"));
    assert.match(r.notes[0] ?? "", /^miss: /, r.notes.join("; "));
    assert.equal(r.out, reference.out);
    assert.equal(bins(dir).length, 2);
    assert.ok(bins(dir).includes(first));
  });

  it("check never loads node:crypto (the key is the bundle's file identity, not a SHA-256 of its text)", () => {
    const { home, xdg } = freshHome();
    const probe = join(home, "probe.cjs");
    writeFileSync(probe, 'process.on("exit", () => process.stderr.write("crypto loaded: " + process.moduleLoadList.some((m) => /^NativeModule crypto$/.test(m)) + "\\n"));\n');
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(process.execPath, ["--require", probe, CLI, "check", "--format", "json", SEED], { cwd: ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CACHE_HOME: xdg } });
      assert.equal(r.stdout, reference.out);
      assert.match(r.stderr, /crypto loaded: false/, `run ${i + 1}: ${r.stderr}`);
    }
  });

  it("another bundle gets another cache file; caches of other bundles are pruned to the two most recent", () => {
    const { home, xdg, dir } = freshHome();
    const env = { HOME: home, XDG_CACHE_HOME: xdg };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stale = ["0", "1", "2", "3"].map((d) => `cli-${d.repeat(32)}.bin`);
    stale.forEach((f, i) => {
      writeFileSync(join(dir, f), "old");
      const t = new Date(Date.now() - (10 - i) * 86_400_000);
      utimesSync(join(dir, f), t, t);
    });
    const copy = join(home, "dist");
    mkdirSync(copy);
    copyFileSync(CLI, join(copy, "cli.js"));
    writeFileSync(join(copy, "cli-main.js"), readFileSync(join(ROOT, "dist", "cli-main.js"), "utf8") + "\n// rebuilt\n");
    run(env);
    const r = run(env, ["check", "--format", "json", SEED], join(copy, "cli.js"));
    assert.equal(r.out, reference.out);
    const left = bins(dir);
    assert.equal(left.length, 3, `the current cache and two others: ${left.join(", ")}`);
    assert.ok(!left.includes(stale[0]!) && !left.includes(stale[1]!) && !left.includes(stale[2]!));
  });
});

describe("code cache key (readBundle)", () => {
  it("a key of 32 hex digits for a valid UTF-8 file; none for one that is not; another after a same-length rewrite", () => {
    const f = join(tmp, "bundle.js");
    writeFileSync(f, "module.exports = 'é';\n");
    const a = readBundle(f, "cli");
    assert.equal(a.source, "module.exports = 'é';\n");
    assert.match(a.key ?? "", /^[0-9a-f]{32}$/);
    assert.equal(readBundle(f, "cli").key, a.key, "the same file, the same key");
    assert.notEqual(readBundle(f, "server").key, a.key, "the bundle kind is part of the key");
    // Rewritten in place with text of the same length. The file system's clock may be coarse (a few ms), so the
    // test sets the modification time itself rather than waiting for a tick (the assumption in codeCache.ts).
    writeFileSync(f, "module.exports = 'è';\n");
    utimesSync(f, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    assert.notEqual(readBundle(f, "cli").key, a.key, "rewritten in place with text of the same length");
    writeFileSync(f, Buffer.from([0x2f, 0x2f, 0xff, 0x0a]));
    assert.equal(readBundle(f, "cli").key, undefined, "not valid UTF-8: no key");
  });

  it("hash128 spreads near inputs over all four lanes", () => {
    const hs = ["a", "b", "ab", "ba", "", "a\0b"].map(hash128);
    assert.equal(new Set(hs).size, hs.length);
    for (const h of hs) assert.match(h, /^[0-9a-f]{32}$/);
    const lanes = (h: string) => [0, 8, 16, 24].map((i) => h.slice(i, i + 8));
    assert.ok(lanes(hash128("a")).every((l, i) => l !== lanes(hash128("b"))[i]), "one character changes every lane");
  });
});

describe("code cache file integrity (sealCache / openCache)", () => {
  const payload = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131 + (i >> 3)) & 0xff));
  const sealed = sealCache(payload);
  it("a sealed payload opens to itself", () => {
    assert.deepEqual(openCache(sealed), payload);
    assert.deepEqual(openCache(sealCache(Buffer.alloc(0))), Buffer.alloc(0));
  });
  it("every single-bit flip of the first 600 bits and of 400 spread over the file is refused", () => {
    const positions = [...Array.from({ length: 600 }, (_, i) => i), ...Array.from({ length: 400 }, (_, i) => Math.floor((i * (sealed.length * 8 - 1)) / 399))];
    for (const bit of positions) {
      const b = Buffer.from(sealed);
      b[bit >> 3] = b[bit >> 3]! ^ (1 << (bit & 7));
      assert.equal(openCache(b), undefined, `bit ${bit}`);
    }
  });
  it("a zeroed payload, a zeroed file, truncations and an appended byte are refused", () => {
    assert.equal(openCache(Buffer.from(sealed).fill(0, 28)), undefined);
    assert.equal(openCache(Buffer.alloc(sealed.length)), undefined);
    for (const n of [0, 1, 27, 28, 29, sealed.length - 1]) assert.equal(openCache(sealed.subarray(0, n)), undefined, `truncated to ${n}`);
    assert.equal(openCache(Buffer.concat([sealed, Buffer.from([0])])), undefined);
  });
  it("hashBytes: unaligned views hash as their bytes; a swap of two words changes the hash", () => {
    const big = Buffer.concat([Buffer.from([1]), payload]);
    assert.deepEqual(hashBytes(big.subarray(1)), hashBytes(payload));
    const swapped = Buffer.from(payload);
    swapped.copy(swapped, 0, 4, 8);
    payload.copy(swapped, 4, 0, 4);
    assert.notDeepEqual(hashBytes(swapped), hashBytes(payload));
  });
});

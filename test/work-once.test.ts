/**
 * Work once (issue #21): one CLI run stats each path at most once (through the injected workspace reader),
 * with the same output as stat-validated reads; the server's snapshot is read once per workspace state and
 * re-read after a file event invalidates it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { analyzeDocument } from "../server/src/core/analyze";
import { runCli } from "../server/src/cliMain";
import { NODE_FS, nodeEnv, WorkspaceSnapshot, type FsReader } from "../server/src/host/nodeEnv";
import { SUMMARY_CHANGED_NOTIFICATION } from "../server/src/protocol";
import { SERVER_BUNDLE, TestLspClient } from "./support/lspClient";

const ROOT = join(import.meta.dirname, "..");

/** NODE_FS, counting every call per path. */
function counting(): { fs: FsReader; stats: Map<string, number>; reads: Map<string, number>; lists: Map<string, number>; reals: Map<string, number> } {
  const reals = new Map<string, number>();
  const stats = new Map<string, number>();
  const reads = new Map<string, number>();
  const lists = new Map<string, number>();
  const bump = (m: Map<string, number>, p: string) => m.set(p, (m.get(p) ?? 0) + 1);
  const fs: FsReader = {
    stat: (p) => (bump(stats, p), NODE_FS.stat(p)),
    readdir: (p) => (bump(lists, p), NODE_FS.readdir(p)),
    read: (p, n) => (bump(reads, p), NODE_FS.read(p, n)),
    exists: (p) => (bump(stats, p), NODE_FS.exists(p)),
    realpath: (p) => (bump(reals, p), NODE_FS.realpath!(p)),
  };
  return { fs, stats, reads, lists, reals };
}

function run(args: string[], cwd: string, snapshot?: WorkspaceSnapshot): { code: number; out: string } {
  let out = "";
  const code = runCli(args, { stdout: (s) => (out += s), stderr: () => undefined, cwd, ...(snapshot ? { snapshot } : {}) });
  return { code, out };
}

describe("work once: one CLI run stats each path once", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pl-work-once-"));
    mkdirSync(join(dir, ".git"));
    mkdirSync(join(dir, "configs"));
    writeFileSync(join(dir, "requirements.txt"), "torch==2.13.0\ntorchtitan==0.2.1\n");
    const seed = readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8");
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, "configs", `c${i}.toml`), seed);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("five configs under one pin: every stat'ed path once, the pin looked at once, the same answers as stat-validated reads", () => {
    const c = counting();
    const snap = new WorkspaceSnapshot(c.fs);
    const once = run(["check", "--format", "json", "configs"], dir, snap);
    const repeated = [...c.stats].filter(([, n]) => n > 1);
    assert.deepEqual(repeated, [], "no path stat'ed twice in one run");
    assert.ok(c.stats.has(join(dir, "requirements.txt")), "the pin was looked at");
    assert.equal(c.stats.get(join(dir, "requirements.txt")), 1, "the pin looked at once for five configs");
    assert.equal(c.lists.get(dir), 1, "the pin's folder listed once");
    // The same output as a run whose every read is stat-validated (no snapshot through nodeEnv).
    const files = (JSON.parse(once.out) as { files: { path: string; torchtitanVersion?: { value: string; source: string } }[] }).files;
    assert.equal(files.length, 5);
    for (const f of files) assert.deepEqual([f.torchtitanVersion?.value, f.torchtitanVersion?.source], ["v0.2.1", "workspace-pin"], f.path);
    const text = readFileSync(join(dir, "configs", "c0.toml"), "utf8");
    const path = join(dir, "configs", "c0.toml");
    const fresh = analyzeDocument(`file://${path}`, text, {}, nodeEnv(path, [dir]));
    const snapped = analyzeDocument(`file://${path}`, text, {}, nodeEnv(path, [dir], new WorkspaceSnapshot()));
    assert.deepEqual(snapped.diagnostics, fresh.diagnostics);
    assert.deepEqual(snapped.torchtitanVersion, fresh.torchtitanVersion);
  });

  it("configs in sibling folders without a .git of their own: each ancestor's .git looked for once (issue #21)", () => {
    const ws = mkdtempSync(join(tmpdir(), "pl-work-once-siblings-"));
    try {
      mkdirSync(join(ws, ".git"));
      const seed = readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8");
      for (const sub of ["a", "b", "c"]) {
        mkdirSync(join(ws, "configs", sub, "deep"), { recursive: true });
        writeFileSync(join(ws, "configs", sub, "deep", "train.toml"), seed);
      }
      const c = counting();
      const once = run(["check", "--format", "json", "configs"], ws, new WorkspaceSnapshot(c.fs));
      assert.deepEqual([...c.stats].filter(([, n]) => n > 1), [], "no path stat'ed twice in one run");
      assert.equal(c.stats.get(join(ws, "configs", ".git")), 1, "the shared parent's .git looked for once for three configs");
      assert.equal(c.stats.get(join(ws, ".git")), 1);
      assert.equal(c.stats.has(join(ws, "..", ".git")), false, "the search stops at the repository root");
      const plain = run(["check", "--format", "json", "configs"], ws);
      assert.equal(once.out, plain.out, "the same output as a run without a counting snapshot");
      assert.equal((JSON.parse(once.out) as { files: unknown[] }).files.length, 3);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it("a snapshot keeps what it read until invalidated; invalidate(path) re-reads that file and its folder", () => {
    const c = counting();
    const snap = new WorkspaceSnapshot(c.fs);
    const pin = join(dir, "requirements.txt");
    const path = join(dir, "configs", "c0.toml");
    const text = readFileSync(path, "utf8");
    const version = () => analyzeDocument(`file://${path}`, text, {}, nodeEnv(path, [dir], snap)).torchtitanVersion?.value;
    assert.equal(version(), "v0.2.1");
    writeFileSync(pin, "torch==2.13.0\ntorchtitan==0.2.2\n");
    try {
      assert.equal(version(), "v0.2.1", "the snapshot's state: no file event yet");
      assert.equal(c.stats.get(pin), 1, "looked at once");
      const gen = snap.generation;
      snap.invalidate([pin]);
      assert.equal(snap.generation, gen + 1);
      assert.equal(version(), "v0.2.2", "re-read after the file event");
      assert.equal(c.stats.get(pin), 2, "looked at again after the event");
      assert.ok((c.reads.get(pin) ?? 0) >= 1, "its new text read");
    } finally {
      writeFileSync(pin, "torch==2.13.0\ntorchtitan==0.2.1\n");
    }
  });

  it("each path's real path resolved once per run (the workspace boundary's check, issue #36); a file event resolves again", () => {
    const c = counting();
    const snap = new WorkspaceSnapshot(c.fs);
    const once = run(["check", "--format", "json", "configs"], dir, snap);
    assert.equal((JSON.parse(once.out) as { files: unknown[] }).files.length, 5);
    const pin = join(dir, "requirements.txt");
    assert.equal(c.reals.get(pin), 1, "the pin's real path resolved once for five configs");
    assert.deepEqual([...c.reals].filter(([, n]) => n > 1), [], "no path resolved twice in one run");
    assert.equal(run(["check", "--format", "json", "configs"], dir).out, once.out, "the same output as a run without a counting snapshot");
    // A link created, moved or removed changes real paths below it: any invalidation forgets them all.
    snap.invalidate([join(dir, "configs", "c4.toml")]);
    assert.equal(snap.realpath(pin), pin);
    assert.equal(c.reals.get(pin), 2, "resolved again after a file event");
    // Paths outside what the owner hears about are resolved every time.
    const partial = new WorkspaceSnapshot(c.fs, (p) => !p.endsWith("requirements.txt"));
    partial.realpath(pin);
    partial.realpath(pin);
    assert.equal(c.reals.get(pin), 4, "not kept: resolved on each call");
  });

  it("paths the owner does not hear about are read stat-validated every time", () => {
    const c = counting();
    const snap = new WorkspaceSnapshot(c.fs, (p) => !p.endsWith("requirements.txt"));
    const pin = join(dir, "requirements.txt");
    snap.readFile(pin);
    snap.readFile(pin);
    assert.equal(c.stats.get(pin), 2, "not kept: stat'ed on each read");
    const other = join(dir, "configs", "c1.toml");
    snap.readFile(other);
    snap.readFile(other);
    assert.equal(c.stats.get(other), 1, "kept: stat'ed once");
  });
});

describe("work once: the language server's workspace state follows file events", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "pl-work-once-lsp-"));
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, "requirements.txt"), "torchtitan==0.2.1\n");
    writeFileSync(join(dir, "train.toml"), readFileSync(join(ROOT, "examples", "tp_only_8gpu.toml"), "utf8"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("registers a watcher, keeps the pin it read until a file event, then re-analyses open documents", { skip: existsSync(SERVER_BUNDLE) ? false : "dist/server.js missing: run npm run build" }, async () => {
    const c = new TestLspClient();
    try {
      const folder = pathToFileURL(dir).href;
      await c.initialize([{ uri: folder, name: "w" }], { didChangeWatchedFiles: { dynamicRegistration: true } });
      const uri = pathToFileURL(join(dir, "train.toml")).href;
      type Summary = { uri: string; version?: { value: string; source: string } };
      const version = (v: string) => (p: Summary) => p.uri === uri && p.version?.value === v;
      const first = c.waitForNotification<Summary>(SUMMARY_CHANGED_NOTIFICATION, version("v0.2.1"));
      await c.open(uri, readFileSync(join(dir, "train.toml"), "utf8"));
      await first;
      await c.waitForRegistration("workspace/didChangeWatchedFiles");
      assert.deepEqual(c.registrations.find((r) => r.method === "workspace/didChangeWatchedFiles")?.registerOptions, { watchers: [{ globPattern: "**/*" }] });
      writeFileSync(join(dir, "requirements.txt"), "torchtitan==0.2.2\n");
      const second = c.waitForNotification<Summary>(SUMMARY_CHANGED_NOTIFICATION, version("v0.2.2"));
      await c.conn.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: pathToFileURL(join(dir, "requirements.txt")).href, type: 2 }] });
      const s = await second;
      assert.deepEqual([s.version?.value, s.version?.source], ["v0.2.2", "workspace-pin"], "re-analysed from the pin's new text after the event");
    } finally {
      await c.shutdown();
    }
  });
});

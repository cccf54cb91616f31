// Real-editor harness: code-server 4.100.3 (VS Code 1.100.3 web workbench + Node extension host) on loopback,
// driven by Debian's /usr/bin/chromium through playwright-core. Every run gets fresh user-data, extensions,
// XDG and TMP dirs; the extension is installed from the packaged .vsix; code-server is stopped by pid.
// See shared spec e2e-vscode.md for why this is the offline-capable way to run VS Code.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync, createWriteStream } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const E2E_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(E2E_DIR, "..");
export const ARTIFACTS = join(REPO, ".e2e-artifacts");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CODE_SERVER = join(E2E_DIR, "node_modules", "code-server", "out", "node", "entry.js");
const PLAYWRIGHT = join(E2E_DIR, "node_modules", "playwright-core");

export function vsixPath() {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  return join(REPO, "dist", `${pkg.name}-${pkg.version}.vsix`);
}

/** The system packages of this harness (the same list as .ci/run's, less neovim: test/docs-links.test.ts). */
export const E2E_APT = "apt-get install -y chromium ripgrep libkrb5-dev pkg-config fonts-dejavu-core";

/** Why the UI suite cannot run here, or null when everything is installed. */
export function missingPrerequisite() {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} not found (${E2E_APT})`;
  if (!existsSync(CODE_SERVER) || !existsSync(PLAYWRIGHT)) return "e2e/node_modules is not installed (npm run setup:e2e)";
  if (!existsSync(vsixPath())) return `${vsixPath()} not found (npm run package)`;
  return null;
}

export const IS_CI = !!process.env.CI && process.env.CI !== "false" && process.env.CI !== "0";

/** A test that reports the prerequisites: skipped with instructions locally, failing on CI, passing when present. */
export function prerequisiteTest(test, missing) {
  const how = `${E2E_APT} && npm run setup:e2e && npm run package`;
  const skip = missing && !IS_CI ? `E2E skipped: ${missing}. To run it: ${how}` : false;
  test("E2E prerequisites (chromium, e2e/node_modules, packaged .vsix) are installed", { skip }, () => {
    if (missing) throw new Error(`E2E prerequisites missing on CI: ${missing}. Install with: ${how}`);
  });
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** Copies the workspace: the repo's examples/*.toml (else e2e/workspace's TP-only fixture) + a pyproject.toml. */
export function makeWorkspace(root) {
  const ws = join(root, "workspace");
  mkdirSync(ws, { recursive: true });
  const examples = join(REPO, "examples");
  const fromExamples = existsSync(join(examples, "tp_only_8gpu.toml"));
  const src = fromExamples ? examples : join(E2E_DIR, "workspace");
  for (const f of readdirSync(src)) if (f.endsWith(".toml") && f !== "pyproject.toml") copyFileSync(join(src, f), join(ws, f));
  copyFileSync(join(E2E_DIR, "workspace", "pyproject.toml"), join(ws, "pyproject.toml"));
  // A torchtitan Python config registry (the Python front end's code lens and hover).
  copyFileSync(join(E2E_DIR, "workspace", "config_registry.py"), join(ws, "config_registry.py"));
  // One YAML training config (accelerate, with YAML 1.1 booleans) and one unrelated YAML file, when present.
  for (const [from, to] of [["yaml/accelerate/yaml11_pitfalls.yaml", "accelerate_config.yaml"], ["yaml/unrelated/github-workflow.yml", "github-workflow.yml"]]) {
    if (fromExamples && existsSync(join(examples, from))) copyFileSync(join(examples, from), join(ws, to));
  }
  return { ws, source: fromExamples ? "examples/" : "e2e/workspace/" };
}

const USER_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.editor.enablePreview": false,
  "workbench.colorTheme": "Default Dark Modern",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "security.workspace.trust.enabled": false,
  "git.enabled": false,
  "chat.commandCenter.enabled": false,
  "editor.minimap.enabled": false,
  "editor.hover.delay": 150,
  "files.autoSave": "off",
};

/**
 * Starts code-server with the .vsix installed. Returns { url, ws, root, log, stop() }.
 * `settings`: user settings of this run on top of USER_SETTINGS.
 * `stop()` kills code-server's process group by pid and waits for it to exit.
 */
export async function startCodeServer(label = "e2e", settings = {}) {
  const root = mkdtempSync(join(tmpdir(), "precision-lens-e2e-"));
  const dirs = Object.fromEntries(["user-data", "extensions", "config", "data", "cache", "state", "tmp", "home"].map((d) => [d, join(root, d)]));
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs["user-data"], "User"), { recursive: true });
  writeFileSync(join(dirs["user-data"], "User", "settings.json"), JSON.stringify({ ...USER_SETTINGS, ...settings }, null, 2));
  const { ws, source } = makeWorkspace(root);
  const env = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    TMPDIR: dirs.tmp,
    VSCODE_PROXY_URI: "",
  };
  delete env.NODE_OPTIONS;
  const port = await freePort();
  const config = join(root, "config.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const common = ["--config", config, "--user-data-dir", dirs["user-data"], "--extensions-dir", dirs.extensions];

  const t0 = Date.now();
  const inst = spawnSync(process.execPath, [CODE_SERVER, ...common, "--install-extension", vsixPath()], { env, encoding: "utf8", timeout: 60_000 });
  const installMs = Date.now() - t0;
  if (inst.status !== 0 || !/successfully installed/i.test(inst.stdout + inst.stderr)) {
    throw new Error(`--install-extension failed (rc ${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  }

  mkdirSync(ARTIFACTS, { recursive: true });
  const logPath = join(ARTIFACTS, `code-server-${label}.log`);
  const log = createWriteStream(logPath);
  const child = spawn(
    process.execPath,
    [CODE_SERVER, ...common, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", ws],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise((res) => child.once("exit", (code, signal) => res({ code, signal })));

  // Ready when code-server prints its listening line (event, not polling); bounded by a timeout.
  await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`code-server did not start within 60 s (see ${logPath})`)), 60_000);
    timer.unref();
    let buf = "";
    const onData = (d) => {
      buf += d.toString();
      if (/HTTP server listening on/.test(buf)) {
        clearTimeout(timer);
        child.stdout.off("data", onData);
        res();
      }
    };
    child.stdout.on("data", onData);
    void exited.then(({ code, signal }) => rej(new Error(`code-server exited early (code ${code}, signal ${signal}); see ${logPath}`)));
  });
  const readyMs = Date.now() - t0;

  async function stop() {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM"); // its own process group: code-server, exthost, language server
      } catch {
        /* already gone */
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }, 5000);
      timer.unref();
      await exited;
      clearTimeout(timer);
    }
    log.end();
  }

  return { url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, ws, wsSource: source, root, dirs, logPath, installMs, readyMs, stop };
}

/** Finds the extension's output-channel log (LogOutputChannel files live under the user-data logs dir). */
export function findExtensionLog(userDataDir) {
  const found = [];
  const walk = (d, depth) => {
    if (depth > 8 || !existsSync(d)) return;
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, depth + 1);
      else if (/Precision Lens\.log$/.test(e)) found.push(p);
    }
  };
  walk(join(userDataDir, "logs"), 0);
  return found;
}

export function loadPlaywright() {
  return import(join(PLAYWRIGHT, "index.mjs"));
}

export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function cleanup(root) {
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}

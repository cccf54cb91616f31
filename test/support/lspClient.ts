/**
 * A minimal LSP client over stdio for protocol tests: spawns the bundled dist/server.js, speaks
 * JSON-RPC through vscode-jsonrpc, and waits on notifications (never on time).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from "vscode-jsonrpc/node";

export const SERVER_BUNDLE = resolve(__dirname, "../../dist/server.js");

export interface Published {
  uri: string;
  version?: number;
  diagnostics: { code: string; severity: number; message: string; range: { start: { line: number; character: number }; end: { line: number; character: number } }; data?: unknown; source?: string }[];
}

export class TestLspClient {
  readonly conn: MessageConnection;
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiters: { pred: (p: Published) => boolean; resolve: (p: Published) => void }[] = [];
  readonly published: Published[] = [];
  readonly notifications: { method: string; params: unknown }[] = [];
  private readonly notificationWaiters: { method: string; pred: (p: unknown) => boolean; resolve: (p: unknown) => void }[] = [];
  stderr = "";
  /** Answers workspace/configuration with this per section. */
  configuration: Record<string, unknown> = { worldSize: null, torchtitanVersion: "auto" };

  /**
   * By default spawns `node [nodeArgs] dist/server.js --stdio`; `server` spawns another command (the bench's
   * yaml-language-server, the packed bin). `nodeArgs`: flags for the server's Node process (e.g.
   * `--max-old-space-size=256` to bound its memory).
   */
  constructor(server?: { command: string; args: string[]; cwd?: string }, nodeArgs: string[] = []) {
    if (!server && !existsSync(SERVER_BUNDLE)) throw new Error(`${SERVER_BUNDLE} is missing: run npm run build first`);
    const { command, args, cwd } = server ?? { command: process.execPath, args: [...nodeArgs, SERVER_BUNDLE, "--stdio"] };
    this.proc = spawn(command, args, { stdio: "pipe", cwd });
    this.proc.stderr.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    this.conn.onNotification("textDocument/publishDiagnostics", (p: Published) => {
      this.published.push(p);
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i]!;
        if (w.pred(p)) {
          this.waiters.splice(i, 1);
          w.resolve(p);
        }
      }
    });
    this.conn.onNotification((method: string, params: unknown) => {
      this.notifications.push({ method, params });
      for (let i = this.notificationWaiters.length - 1; i >= 0; i--) {
        const w = this.notificationWaiters[i]!;
        if (w.method === method && w.pred(params)) {
          this.notificationWaiters.splice(i, 1);
          w.resolve(params);
        }
      }
    });
    this.conn.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) => p.items.map(() => this.configuration));
    this.conn.onRequest("client/registerCapability", (p: { registrations: { method: string; registerOptions?: unknown }[] }) => {
      this.registrations.push(...p.registrations);
      for (let i = this.registrationWaiters.length - 1; i >= 0; i--) {
        if (p.registrations.some((r) => r.method === this.registrationWaiters[i]!.method)) this.registrationWaiters.splice(i, 1)[0]!.resolve();
      }
      return null;
    });
    this.conn.onRequest("window/workDoneProgress/create", () => null);
    this.conn.listen();
  }

  /** Registrations the server asked for (client/registerCapability), by method. */
  readonly registrations: { method: string; registerOptions?: unknown }[] = [];
  private readonly registrationWaiters: { method: string; resolve: () => void }[] = [];

  /** `workspaceCapabilities`: more client capabilities under `workspace` (e.g. didChangeWatchedFiles). */
  async initialize(workspaceFolders: { uri: string; name: string }[] | null = null, workspaceCapabilities: Record<string, unknown> = {}): Promise<{ capabilities: Record<string, unknown> }> {
    const r = await this.conn.sendRequest<{ capabilities: Record<string, unknown> }>("initialize", {
      processId: process.pid,
      rootUri: null,
      capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, ...workspaceCapabilities }, textDocument: { publishDiagnostics: { versionSupport: true } } },
      workspaceFolders,
    });
    await this.conn.sendNotification("initialized", {});
    return r;
  }

  /** Resolves with the next publishDiagnostics for `uri` that satisfies `pred` (including ones already received after `since`). */
  waitForDiagnostics(uri: string, pred: (p: Published) => boolean = () => true, timeoutMs = 10_000): Promise<Published> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching publishDiagnostics for ${uri} within ${timeoutMs} ms; got ${JSON.stringify(this.published.filter((p) => p.uri === uri).map((p) => p.diagnostics.map((d) => d.code)))}; server stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({
        pred: (p) => p.uri === uri && pred(p),
        resolve: (p) => {
          clearTimeout(timer);
          resolvePromise(p);
        },
      });
    });
  }

  /** Resolves once the server has registered `method` (client/registerCapability), or rejects after the timeout. */
  waitForRegistration(method: string, timeoutMs = 10_000): Promise<void> {
    if (this.registrations.some((r) => r.method === method)) return Promise.resolve();
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no registration of ${method} within ${timeoutMs} ms`)), timeoutMs);
      this.registrationWaiters.push({
        method,
        resolve: () => {
          clearTimeout(timer);
          resolvePromise();
        },
      });
    });
  }

  /** Resolves with a notification of `method` matching `pred`, already received or arriving within the timeout. */
  waitForNotification<T>(method: string, pred: (p: T) => boolean = () => true, timeoutMs = 10_000): Promise<T> {
    const seen = this.notifications.find((n) => n.method === method && pred(n.params as T));
    if (seen) return Promise.resolve(seen.params as T);
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${method} within ${timeoutMs} ms; server stderr: ${this.stderr}`)), timeoutMs);
      this.notificationWaiters.push({
        method,
        pred: (p) => pred(p as T),
        resolve: (p) => {
          clearTimeout(timer);
          resolvePromise(p as T);
        },
      });
    });
  }

  open(uri: string, text: string, languageId = "toml", version = 1): Promise<void> {
    return this.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version, text } });
  }

  change(uri: string, version: number, text: string): Promise<void> {
    return this.conn.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** Writes bytes to the server's stdin as they are (a malformed frame, for the hardening tests). */
  writeRaw(bytes: string | Buffer): void {
    this.proc.stdin.write(bytes);
  }

  /** The server process's exit code or signal, or undefined while it runs. */
  get exited(): string | undefined {
    if (this.proc.exitCode !== null) return `exit ${this.proc.exitCode}`;
    return this.proc.signalCode ?? undefined;
  }

  /** `waitExitMs`: give the server that long to exit by itself before it is killed (a --cpu-prof profile is written at exit). */
  async shutdown(waitExitMs = 0): Promise<void> {
    try {
      await this.conn.sendRequest("shutdown");
      await this.conn.sendNotification("exit");
      if (waitExitMs > 0 && this.proc.exitCode === null) {
        await new Promise<void>((resolveExit) => {
          const timer = setTimeout(resolveExit, waitExitMs);
          this.proc.once("exit", () => {
            clearTimeout(timer);
            resolveExit();
          });
        });
      }
    } finally {
      this.conn.dispose();
      if (this.proc.exitCode === null) this.proc.kill();
    }
  }
}

/**
 * Manifest conventions: package.json's client-owned fields come from client/scripts/manifest.ts (settings from
 * client/src/settings.ts), and our contributions never take over what Even Better TOML (taplo), tombi,
 * vscode-yaml or VS Code's JSON support own: language ids, grammars, formatters, activation.
 */
import { test } from "node:test";
import { GPU_IDS, parseGpu } from "../server/src/core/engine/gpus";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { manifestFields } from "../client/scripts/manifest";
import { DOCUMENT_SELECTOR } from "../client/src/selector";
import { SETTINGS, TORCHTITAN_VERSIONS, VERSION_PICKS, isValidTorchtitanVersion } from "../client/src/settings";
import { VERSION_CHOICES } from "../server/src/core/frameworks/torchtitan/versions";

interface Manifest {
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  activationEvents: string[];
  categories: string[];
  capabilities: { untrustedWorkspaces: { supported: boolean | string }; virtualWorkspaces: unknown };
  contributes: {
    languages?: { id: string; extensions?: string[]; filenames?: string[]; filenamePatterns?: string[]; firstLine?: string }[];
    grammars?: { language?: string; scopeName: string; path: string; injectTo?: string[] }[];
    configurationDefaults?: Record<string, unknown>;
    commands: { command: string }[];
    configuration: { properties: Record<string, unknown> };
  } & Record<string, unknown>;
  [k: string]: unknown;
}
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as Manifest;

/** VS Code 1.100's EXTENSION_CATEGORIES (vs/platform/extensions/common/extensions.ts). */
const VSCODE_CATEGORIES = ["AI", "Azure", "Chat", "Data Science", "Debuggers", "Extension Packs", "Education", "Formatters", "Keymaps", "Language Packs", "Linters", "Machine Learning", "Notebooks", "Programming Languages", "SCM Providers", "Snippets", "Testing", "Themes", "Visualization", "Other"];
/** Ids and scopes owned by Even Better TOML / tombi (toml grammar), vscode-yaml and VS Code (yaml, json). */
const FOREIGN_SCOPES = ["source.toml", "source.yaml", "source.json", "source.json.comments", "source.jsonc"];
const FOREIGN_LANGUAGE_IDS = ["yaml", "json", "jsonc", "jsonl", "dockercompose", "github-actions-workflow"];

test("package.json's client-owned fields are generated from client/scripts/manifest.ts (npm run setup:manifest)", () => {
  for (const [k, v] of Object.entries(manifestFields())) assert.deepEqual(pkg[k], v, `package.json "${k}" is stale: run npm run setup:manifest`);
});

test("settings: worldSize, torchtitanVersion, gpu, trace.server with resource scope where it matters", () => {
  const props = pkg.contributes.configuration.properties as Record<string, { default: unknown; scope: string; type: unknown; pattern?: string; enum?: string[] }>;
  assert.deepEqual(Object.keys(props), ["precisionLens.worldSize", "precisionLens.torchtitanVersion", "precisionLens.gpu", "precisionLens.torchtitanConfigSource", "precisionLens.trace.server"]);
  assert.equal(props["precisionLens.worldSize"]!.default, null);
  assert.deepEqual(props["precisionLens.worldSize"]!.type, ["integer", "null"]);
  assert.equal(props["precisionLens.worldSize"]!.scope, "resource");
  assert.equal(props["precisionLens.torchtitanVersion"]!.default, "auto");
  assert.equal(props["precisionLens.torchtitanVersion"]!.scope, "resource");
  assert.deepEqual(props["precisionLens.trace.server"]!.enum, ["off", "messages", "verbose"]);
  assert.equal(props["precisionLens.gpu"]!.default, "auto");
  assert.equal(props["precisionLens.gpu"]!.scope, "resource");
  // The setting offers exactly the engine's GPU table (one source of truth), and the server parses each.
  assert.deepEqual(props["precisionLens.gpu"]!.enum, ["auto", ...GPU_IDS]);
  for (const id of GPU_IDS) assert.equal(parseGpu(id), id);
  assert.deepEqual(Object.keys(SETTINGS), ["worldSize", "torchtitanVersion", "gpu", "torchtitanConfigSource", "trace.server"]);
});

test("the torchtitanVersion setting accepts exactly the server's version choices", () => {
  const serverChoices = VERSION_CHOICES.filter((v) => v !== "main@YYYY-MM-DD");
  assert.deepEqual([...TORCHTITAN_VERSIONS], [...serverChoices]);
  const re = new RegExp((pkg.contributes.configuration.properties["precisionLens.torchtitanVersion"] as { pattern: string }).pattern);
  for (const v of [...serverChoices, "main@2025-03-01"]) assert.ok(re.test(v), `${v} should be accepted`);
  for (const v of ["v0.2.3", "main", "main@2025-3-1", "latest", "V0.2.2", " v0.2.2"]) assert.ok(!re.test(v), `${v} should be rejected`);
  assert.equal(isValidTorchtitanVersion("v0.2.2+pr2213"), true);
  assert.equal(isValidTorchtitanVersion("v0.2.2+pr9999"), false);
});

test("contributes only the toml language, never yaml/json ids, and no filename/firstLine claims", () => {
  const langs = pkg.contributes.languages ?? [];
  assert.deepEqual(langs.map((l) => l.id), ["toml"]);
  for (const l of langs) {
    assert.ok(!FOREIGN_LANGUAGE_IDS.includes(l.id), `contributes language ${l.id}`);
    assert.deepEqual(l.extensions, [".toml"]);
    assert.equal(l.filenames, undefined, "filenames would claim files like Cargo.lock from other extensions");
    assert.equal(l.filenamePatterns, undefined);
    assert.equal(l.firstLine, undefined);
  }
});

test("the toml grammar has our own scopeName and injects into nothing", () => {
  const grammars = pkg.contributes.grammars ?? [];
  assert.equal(grammars.length, 1);
  for (const g of grammars) {
    assert.equal(g.language, "toml");
    assert.ok(!FOREIGN_SCOPES.includes(g.scopeName), `grammar scope ${g.scopeName} belongs to another extension`);
    assert.match(g.scopeName, /^source\.toml\.precision-lens$/);
    assert.equal(g.injectTo, undefined);
    const file = JSON.parse(readFileSync(g.path, "utf8")) as { scopeName: string };
    assert.equal(file.scopeName, g.scopeName, `${g.path} scopeName differs from package.json`);
  }
});

test("no formatter, no default-formatter or [toml]/[yaml]/[json] defaults, no schema validation hijack", () => {
  const c = pkg.contributes;
  assert.equal(c.configurationDefaults, undefined, "configurationDefaults could change other extensions' editors");
  for (const k of ["jsonValidation", "yamlValidation", "tomlValidation", "snippets"]) assert.equal(c[k], undefined, `unexpected contributes.${k}`);
  const src = readdirSync("client/src").map((f) => readFileSync(`client/src/${f}`, "utf8")).join("\n");
  assert.doesNotMatch(src, /register(DocumentFormattingEditProvider|DocumentRangeFormattingEditProvider|OnTypeFormattingEditProvider)/);
  assert.ok(!/"editor\.defaultFormatter"/.test(readFileSync("package.json", "utf8")));
});

test("activation only on the languages we read: no '*', no onStartupFinished, no workspaceContains", () => {
  assert.deepEqual(pkg.activationEvents, ["onLanguage:toml", "onLanguage:yaml", "onLanguage:json", "onLanguage:python"]);
  for (const e of pkg.activationEvents) assert.ok(e !== "*" && e !== "onStartupFinished" && !e.startsWith("workspaceContains"), e);
});

test("the client selects YAML/JSON by file pattern, never by claiming their language ids", () => {
  for (const f of DOCUMENT_SELECTOR) {
    if ("language" in f) assert.equal(f.language, "toml");
  }
  assert.deepEqual(
    DOCUMENT_SELECTOR.map((f) => ("pattern" in f ? f.pattern : f.language)),
    ["**/*.toml", "toml", "**/*.{yaml,yml,json}", "**/*.py", "**/*.{sh,bash,slurm,sbatch}"],
  );
});

test("every contributed command is registered by the client and vice versa", () => {
  const src = readdirSync("client/src").map((f) => readFileSync(`client/src/${f}`, "utf8")).join("\n");
  const registered = [...src.matchAll(/registerCommand\("([^"]+)"/g)].map((m) => m[1]).sort();
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(registered, contributed);
  assert.deepEqual(contributed, [
    "precisionLens.openReport",
    "precisionLens.restartServer",
    "precisionLens.setTorchtitanVersion",
    "precisionLens.setWorldSize",
    "precisionLens.showOutput",
  ]);
});

test("categories are ones VS Code knows; engine matches @types/vscode; workspace capabilities declared", () => {
  for (const c of pkg.categories) assert.ok(VSCODE_CATEGORIES.includes(c), `unknown category ${c}`);
  assert.equal(pkg.engines.vscode, "^1.100.0");
  assert.equal(pkg.devDependencies["@types/vscode"], "1.100.0");
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, true);
  assert.deepEqual(pkg.capabilities.virtualWorkspaces, manifestFields().capabilities && (manifestFields().capabilities as { virtualWorkspaces: unknown }).virtualWorkspaces);
  assert.match(pkg.devDependencies["@vscode/vsce"] ?? "", /^3\.\d+\.\d+$/, "@vscode/vsce must be pinned to an exact 3.x (4.x needs Node 22)");
});

test("Python files get the commands and versions TOML files get (issue #34)", () => {
  const palette = (pkg.contributes as unknown as { menus: { commandPalette: { command: string; when: string }[] } }).menus.commandPalette;
  for (const id of ["precisionLens.openReport", "precisionLens.setWorldSize", "precisionLens.setTorchtitanVersion"]) {
    const when = palette.find((m) => m.command === id)?.when ?? "";
    const m = /^resourceExtname =~ \/(.+)\/$/.exec(when);
    assert.ok(m, `${id}: ${when}`);
    const re = new RegExp(m[1]!.replace(/\\\\/g, "\\"));
    for (const ext of [".py", ".toml", ".yaml", ".yml", ".json"]) assert.ok(re.test(ext), `${id} shows for ${ext}`);
    assert.ok(!re.test(".md"), `${id} stays off Markdown`);
  }
  const re = new RegExp((pkg.contributes.configuration.properties["precisionLens.torchtitanVersion"] as { pattern: string }).pattern);
  for (const v of ["v0.3.0", "v0.4.0", "main@2026-09-11"]) assert.ok(re.test(v), `${v} should be accepted`);
  assert.ok(!re.test("v0.5.0"));
  assert.ok(VERSION_PICKS.some((p) => p.id === "v0.3.0") && VERSION_PICKS.some((p) => p.id === "v0.4.0"));
});

test("diagnostic links point at the repository package.json declares, and every code's page is a file in docs/ (issue #34)", async () => {
  const { REPOSITORY_URL, DIAGNOSTIC_CODES, codeDocPath, codeHref } = await import("../server/src/core/diagnostics/codes");
  assert.deepEqual((pkg as unknown as { repository: unknown }).repository, { type: "git", url: REPOSITORY_URL });
  const codes = Object.keys(DIAGNOSTIC_CODES);
  assert.ok(codes.length > 50);
  for (const code of codes) {
    assert.ok(codeHref(code).startsWith(`${REPOSITORY_URL}/blob/main/`), code);
    const path = codeHref(code).slice(`${REPOSITORY_URL}/blob/main/`.length);
    assert.equal(path, codeDocPath(code));
    assert.ok(readFileSync(new URL(`../${path}`, `file://${__filename}`)).length > 0, `${path} exists`);
  }
});

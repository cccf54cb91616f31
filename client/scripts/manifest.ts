/**
 * The manifest fields the client owns, in one place. `npm run setup:manifest` writes them into package.json
 * (only these keys; everything else is left as it is); test/manifest.test.ts fails when package.json differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { configurationContribution } from "../src/settings";
import { REPOSITORY_URL } from "../../server/src/core/diagnostics/codes";

const CMD = "Precision Lens";
/** Where the commands show in the Command Palette: configs, and Python files (torchtitan's config registries). */
const CONFIG_FILES = "resourceExtname =~ /^\\.(toml|ya?ml|json|py)$/";

export function manifestFields(): Record<string, unknown> {
  return {
    // The repository every diagnostic link of the CLI and SARIF points at (codes.ts PUBLISHED_DOCS), declared.
    repository: { type: "git", url: REPOSITORY_URL },
    icon: "images/icon.png",
    galleryBanner: { color: "#1b2330", theme: "dark" },
    categories: ["Linters", "Machine Learning", "Programming Languages"],
    keywords: ["mixed precision", "bf16", "fp8", "torchtitan", "fsdp", "tensor parallel", "toml", "training config", "pytorch"],
    activationEvents: ["onLanguage:toml", "onLanguage:yaml", "onLanguage:json", "onLanguage:python"],
    capabilities: {
      untrustedWorkspaces: { supported: true },
      virtualWorkspaces: {
        supported: false,
        description: "The language server analyses files on disk (file:// documents) only.",
      },
    },
    contributes: {
      languages: [
        {
          id: "toml",
          aliases: ["TOML", "toml"],
          extensions: [".toml"],
          configuration: "./syntaxes/toml.language-configuration.json",
        },
      ],
      grammars: [{ language: "toml", scopeName: "source.toml.precision-lens", path: "./syntaxes/toml.tmLanguage.json" }],
      configuration: configurationContribution(),
      commands: [
        { command: "precisionLens.openReport", title: "Open Precision Report", category: CMD, icon: "$(preview)" },
        { command: "precisionLens.setWorldSize", title: "Set World Size…", category: CMD },
        { command: "precisionLens.setTorchtitanVersion", title: "Set torchtitan Version…", category: CMD },
        { command: "precisionLens.restartServer", title: "Restart Language Server", category: CMD },
        { command: "precisionLens.showOutput", title: "Show Output", category: CMD },
      ],
      menus: {
        commandPalette: [
          { command: "precisionLens.openReport", when: CONFIG_FILES },
          { command: "precisionLens.setWorldSize", when: CONFIG_FILES },
          { command: "precisionLens.setTorchtitanVersion", when: CONFIG_FILES },
        ],
      },
    },
  };
}

export const PACKAGE_JSON = fileURLToPath(new URL("../../package.json", import.meta.url));

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Re-read right before writing: other people edit scripts/dependencies in the same file.
  const text = readFileSync(PACKAGE_JSON, "utf8");
  const pkg = JSON.parse(text) as Record<string, unknown>;
  const fields = manifestFields();
  const out: Record<string, unknown> = {};
  // Keep the existing key order; append new keys after "main".
  for (const [k, v] of Object.entries(pkg)) {
    out[k] = k in fields ? fields[k] : v;
    if (k === "main") for (const [fk, fv] of Object.entries(fields)) if (!(fk in pkg)) out[fk] = fv;
  }
  for (const [fk, fv] of Object.entries(fields)) if (!(fk in out)) out[fk] = fv;
  const next = JSON.stringify(out, null, 2) + "\n";
  if (next !== text) {
    writeFileSync(PACKAGE_JSON, next);
    console.log("package.json: manifest fields updated from client/scripts/manifest.ts");
  } else console.log("package.json: manifest fields already up to date");
}

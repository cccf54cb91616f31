/**
 * Documents the client sends to the server (no `vscode` import, so tests can check it). Patterns, not
 * language ids, for YAML/JSON: those files keep whatever language vscode-yaml or the built-in JSON support
 * gives them; the server decides by content whether a file is a training config and stays silent otherwise.
 */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", pattern: "**/*.toml" },
  { scheme: "untitled", language: "toml" },
  { scheme: "file", pattern: "**/*.{yaml,yml,json}" },
  // torchtitan Python config registries; the server refuses any other Python file on a scan of its text.
  { scheme: "file", pattern: "**/*.py" },
  // Launch scripts (verl's Hydra overrides, Megatron-LM's flags); the server refuses any other script on a scan.
  { scheme: "file", pattern: "**/*.{sh,bash,slurm,sbatch}" },
];

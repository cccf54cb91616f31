/**
 * Issue #18: the critical hostile inputs, each as a generator of a given size in characters, shared by
 * test/hardening-linear.test.ts, test/robustness.test.ts and the bench (test/bench/linear.ts).
 * Each is a small, legal-looking file whose cost was super-linear before the fix.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A real torchtitan config, so detection, the schema rules and the workspace readers all run. */
const TITAN = readFileSync(join(__dirname, "../../examples/tp_only_8gpu.toml"), "utf8");

export interface Attack {
  name: string;
  /** The config's file name (its extension picks the parser). */
  file: string;
  /** Files beside the config (a run script, a slurm file, requirements, job_config.py), by name. */
  neighbours?: Record<string, string>;
  make(size: number): { text: string; neighbours?: Record<string, string> };
}

const pad = (unit: string, size: number): string => unit.repeat(Math.max(1, Math.ceil(size / unit.length)));
const parts = (size: number): string => {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const p = `a${i}`;
    out.push(p);
    n += p.length + 1;
  }
  return out.join(".");
};

export const ATTACKS: Attack[] = [
  { name: "toml broken table header ([ + spaces + !)", file: "train.toml", make: (n) => ({ text: `${TITAN}\n[${" ".repeat(n)}!\n` }) },
  { name: "toml directive comment (x + spaces + y)", file: "train.toml", make: (n) => ({ text: `# precision-lens: x${" ".repeat(n)}y\n${TITAN}` }) },
  { name: "yaml directive comment (x + spaces + y)", file: "accelerate.yaml", make: (n) => ({ text: `# precision-lens: x${" ".repeat(n)}y\ndistributed_type: FSDP\nmixed_precision: bf16\n` }) },
  { name: "json directive comment (x + spaces + y)", file: "ds_config.json", make: (n) => ({ text: `// precision-lens: x${" ".repeat(n)}y\n{"zero_optimization": {"stage": 3}, "bf16": {"enabled": true}}\n` }) },
  { name: "toml dotted header with many parts", file: "train.toml", make: (n) => ({ text: `${TITAN}\n[job.${parts(n)}]\nx = 1\n` }) },
  { name: "toml dotted key with many parts", file: "train.toml", make: (n) => ({ text: `${TITAN.replace("[job]\n", `[job]\n${parts(n)} = 1\n`)}\n` }) },
  { name: "yaml dotted key with many parts", file: "accelerate.yaml", make: (n) => ({ text: `distributed_type: FSDP\nmixed_precision: bf16\n${parts(n).split(".").map((p, i) => `${" ".repeat(Math.min(i, 0))}${p}`).join(".")}: 1\n` }) },
  {
    name: "run script with a long line beside a torchtitan config",
    file: "train.toml",
    make: (n) => ({ text: TITAN, neighbours: { "run.sh": `torchrun --nproc_per_node ${" ".repeat(n)}x train.toml\nNGPU=${"=".repeat(n)}\n` } }),
  },
  {
    name: "slurm file with a long #SBATCH line",
    file: "train.toml",
    make: (n) => ({ text: TITAN, neighbours: { "job.slurm": `#SBATCH ${" ".repeat(n)}x\n#SBATCH --nodes${" ".repeat(n)}x\nsrun train.toml\n` } }),
  },
  {
    name: "requirements with a long line",
    file: "train.toml",
    make: (n) => ({ text: TITAN, neighbours: { "requirements.txt": `torchtitan${" ".repeat(n)}x\ntorchtitan ${"=".repeat(n)}\n` } }),
  },
  {
    name: "job_config.py with a long line",
    file: "train.toml",
    make: (n) => ({ text: `${TITAN}\n[custom]\nx = 1\n`, neighbours: { "torchtitan/config/job_config.py": `from dataclasses import dataclass\n@dataclass\nclass Custom:\n    x: int${" ".repeat(n)}| None${" ".repeat(n)}x\nclass ${" ".repeat(n)}(\n` } }),
  },
];

export { pad };

/**
 * Writes one attack at `size` into a fresh temporary folder (the config and its neighbour files), runs `fn`
 * with the config's path, and removes the folder. `chars`: the config's and neighbours' characters together.
 */
export function withAttackOnDisk<T>(attack: Attack, size: number, fn: (a: { path: string; dir: string; text: string; chars: number }) => T): T {
  const { text, neighbours } = attack.make(size);
  const dir = mkdtempSync(join(tmpdir(), "pl-attack-"));
  try {
    for (const [name, body] of Object.entries(neighbours ?? {})) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), body);
    }
    const path = join(dir, attack.file);
    writeFileSync(path, text);
    const chars = text.length + Object.values(neighbours ?? {}).reduce((a, b) => a + b.length, 0);
    return fn({ path, dir, text, chars });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

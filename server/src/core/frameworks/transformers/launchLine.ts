/**
 * The first link of the launch chain: a command line (a run script's, or a README's code line) that names this
 * config, read as the shell would see it, never run. The text is cut into logical lines here (continuations
 * joined, comments and a markdown prompt dropped, each line read on its own so that prose in a README cannot
 * open a quote that runs on); each line's words, quotes, assignments (`VAR=x`, `export VAR=x`, `VAR=(…)`, a
 * command's own `VAR=x` prefixes) and expansions (`${VAR}`, `$VAR`, `${VAR:-default}`, `${VAR:=default}`,
 * `"${ARR[@]}"`) are read by the launch-script reader `parse/shell.ts`, with the variables carried from line
 * to line; a variable nobody assigns stays unexpanded and its word matches nothing. Then the launcher is read
 * from the words:
 *
 * - `accelerate launch` with `--config_file`/`--config-file`, `--mixed_precision`, `--num_processes`,
 *   `--num_machines`, `--multi_gpu`, `--use_deepspeed`, `--zero_stage`, `--deepspeed_config_file`, `--use_fsdp`,
 *   `--fsdp_version` (accelerate commands/launch.py; a flag wins over the config file's value);
 * - `torchrun` / `python -m torch.distributed.run` with `--nproc_per_node`/`--nproc-per-node` and `--nnodes`;
 * - `deepspeed` (the DeepSpeed launcher) with `--num_gpus`/`--num_nodes`, and the script's `--deepspeed X`;
 * - `trl <command>` with `--accelerate_config` (trl/cli/accelerate_config.py@v1.9.0);
 * - `llamafactory-cli train` (torchrun when `FORCE_TORCHRUN` is set or more than one GPU is visible:
 *   src/llamafactory/cli.py@v0.9.5, the count of GPUs is unknown here);
 * - `python script.py` / `python -m module` (one process).
 *
 * Bounded: logical lines over MAX_SCANNED_LINE_CHARS are skipped; each line's words and expansions are bounded
 * by `parse/shell.ts`; `expand` never grows a string past MAX_SCANNED_LINE_CHARS.
 */
import { expandText, readShell, type ShellVars } from "../../parse/shell";
import { MAX_SCANNED_LINE_CHARS } from "../../workspace/scan";

export type LauncherKind = "accelerate" | "torchrun" | "deepspeed" | "trl" | "llamafactory-cli" | "python";

export interface LaunchCommand {
  kind: LauncherKind;
  /** 0-based line where the logical command starts. */
  line: number;
  /** `--config_file` (accelerate) or TRL's `--accelerate_config` value. */
  configFile?: string;
  mixedPrecision?: string;
  /** Total processes: `--num_processes`, or `--nproc_per_node` × `--nnodes`, or `--num_gpus` × `--num_nodes`. */
  numProcesses?: number;
  useDeepspeed?: boolean;
  zeroStage?: number;
  /** A DeepSpeed JSON named on the command line (`--deepspeed_config_file`, or the training script's `--deepspeed X`). */
  deepspeedFile?: string;
  useFsdp?: boolean;
  fsdpVersion?: number;
  /** `FORCE_TORCHRUN` set (llamafactory-cli). */
  forceTorchrun?: boolean;
  /** The Python training script the command runs (`accelerate launch … train.py`, `python train.py`), as written. */
  script?: string;
}

/**
 * A heredoc operator (`<<EOF`, `<<-'EOF'`, `<< "END"`; not the here-string `<<<`) and its delimiter. Its body is data
 * fed to the command, not commands: `<<skip … skip` with no command is a common way to comment out a block, and a
 * launch line inside it never runs (held-back: a ZeRO-1 run whose script opens with a commented-out `python …` line).
 */
const HEREDOC = /(?:^|[^<])<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/;

/** Lines a heredoc body may span before its delimiter is looked for no further (then the line is read as written). */
const MAX_HEREDOC_LINES = 5_000;

/**
 * Logical lines: continuations (`\` at the end) joined, `#` comments and a markdown prompt (`$ `) dropped, heredoc
 * bodies skipped (only where the delimiter line is found: a README's stray `<<` hides nothing).
 */
export function logicalLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const physical = text.split(/\r?\n/);
  let start = 0;
  let buf = "";
  for (let i = 0; i < physical.length; i++) {
    const raw = physical[i]!;
    const here = HEREDOC.exec(raw.replace(/(^|\s)#.*$/, ""));
    if (here) {
      const delim = here[2]!;
      let end = -1;
      for (let j = i + 1; j < physical.length && j <= i + MAX_HEREDOC_LINES; j++) {
        if (physical[j]!.trim() === delim) {
          end = j;
          break;
        }
      }
      if (end > 0) {
        // The command that opens the heredoc is read; its body and the delimiter line are not.
        const joined = (buf + raw.slice(0, here.index + (here[0].startsWith("<") ? 0 : 1))).replace(/(^|\s)#.*$/, "").replace(/^\s*(?:\$|>)\s+/, "").trim();
        if (!buf) start = i;
        buf = "";
        if (joined) out.push({ line: start, text: joined });
        i = end;
        continue;
      }
    }
    if (!buf) start = i;
    if (buf.length + raw.length > MAX_SCANNED_LINE_CHARS) {
      buf = "";
      continue;
    }
    if (/\\\s*$/.test(raw)) {
      buf += `${raw.replace(/\\\s*$/, "")} `;
      continue;
    }
    const joined = (buf + raw).replace(/(^|\s)#.*$/, "").replace(/^\s*(?:\$|>)\s+/, "").trim();
    buf = "";
    if (joined) out.push({ line: start, text: joined });
  }
  return out;
}

/** Expands `${VAR:-x}`, `${VAR:=x}`, `${VAR}` and `$VAR` with the variables known so far; others stay as written. */
export function expand(s: string, vars: ReadonlyMap<string, string>): string {
  const out = expandText(s, vars);
  return out.length > MAX_SCANNED_LINE_CHARS ? s : out;
}

function unquote(t: string): string {
  return t.replace(/^["']|["']$/g, "");
}

const num = (s: string | undefined): number | undefined => {
  const n = s === undefined ? NaN : Number(unquote(s));
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The value of `--flag X` or `--flag=X` (either spelling of `_`/`-`). */
function flag(tokens: string[], ...names: string[]): string | undefined {
  const alts = names.flatMap((n) => [n, n.replace(/_/g, "-")]);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    for (const n of alts) {
      if (t === n && i + 1 < tokens.length && !tokens[i + 1]!.startsWith("--")) return unquote(tokens[i + 1]!);
      if (t.startsWith(`${n}=`)) return unquote(t.slice(n.length + 1));
    }
  }
  return undefined;
}

const has = (tokens: string[], ...names: string[]): boolean => names.some((n) => tokens.includes(n) || tokens.includes(n.replace(/_/g, "-")));

/** The launcher of one command whose words are `tokens` (variables already expanded), or undefined. */
export function parseCommand(tokens: string[], env: ReadonlyMap<string, string>): Omit<LaunchCommand, "line"> | undefined {
  const out = parseLauncher(tokens, env);
  if (!out || out.kind === "trl" || out.kind === "llamafactory-cli") return out;
  // The training script: the first `.py` word after the launcher (a `.py` value of a flag naming a file is none).
  for (let k = 1; k < tokens.length; k++) {
    const w = unquote(tokens[k]!);
    if (/\.py$/.test(w) && !w.startsWith("-") && !/^--?(?:config[_-]file|deepspeed[_-]config[_-]file)$/.test(tokens[k - 1]!)) return { ...out, script: w };
  }
  return out;
}

function parseLauncher(tokens: string[], env: ReadonlyMap<string, string>): Omit<LaunchCommand, "line"> | undefined {
  // Drop `VAR=x` prefixes (their values are in `env`), `env`, `nohup`, `srun …` stays unknown.
  let i = 0;
  while (i < tokens.length && (/^[A-Za-z_]\w*=/.test(tokens[i]!) || ["env", "nohup", "exec", "time", "uv", "run"].includes(tokens[i]!))) i++;
  const t = tokens.slice(i);
  const at = (k: number) => (t[k] ?? "").replace(/^.*\//, "");
  const head = at(0);
  const pyModule = /^python[\d.]*$/.test(head) && t[1] === "-m" ? t[2] : undefined;
  if ((head === "accelerate" && t[1] === "launch") || pyModule === "accelerate.commands.launch") {
    const rest = t.slice(pyModule ? 3 : 2);
    const out: Omit<LaunchCommand, "line"> = { kind: "accelerate" };
    const cf = flag(rest, "--config_file");
    if (cf) out.configFile = cf;
    const mp = flag(rest, "--mixed_precision");
    if (mp) out.mixedPrecision = mp.toLowerCase();
    const np = num(flag(rest, "--num_processes"));
    if (np) out.numProcesses = np;
    if (has(rest, "--use_deepspeed")) out.useDeepspeed = true;
    const zs = num(flag(rest, "--zero_stage"));
    if (zs !== undefined) out.zeroStage = zs;
    const dsf = flag(rest, "--deepspeed_config_file");
    if (dsf) out.deepspeedFile = dsf;
    if (has(rest, "--use_fsdp")) out.useFsdp = true;
    const fv = num(flag(rest, "--fsdp_version"));
    if (fv) out.fsdpVersion = fv;
    return out;
  }
  if (head === "torchrun" || pyModule === "torch.distributed.run" || pyModule === "torch.distributed.launch") {
    const rest = t.slice(pyModule ? 3 : 1);
    const per = num(flag(rest, "--nproc_per_node"));
    const nodes = num(flag(rest, "--nnodes")) ?? 1;
    const out: Omit<LaunchCommand, "line"> = { kind: "torchrun" };
    if (per) out.numProcesses = per * nodes;
    const ds = flag(rest, "--deepspeed");
    if (ds) out.deepspeedFile = ds;
    return out;
  }
  if (head === "deepspeed") {
    const rest = t.slice(1);
    const out: Omit<LaunchCommand, "line"> = { kind: "deepspeed" };
    const g = num(flag(rest, "--num_gpus"));
    const n = num(flag(rest, "--num_nodes")) ?? 1;
    if (g) out.numProcesses = g * n;
    const ds = flag(rest, "--deepspeed", "--deepspeed_config");
    if (ds) out.deepspeedFile = ds;
    return out;
  }
  if (head === "trl" && t[1] && !t[1].startsWith("-")) {
    const rest = t.slice(2);
    const out: Omit<LaunchCommand, "line"> = { kind: "trl" };
    const ac = flag(rest, "--accelerate_config");
    if (ac) out.configFile = ac;
    const np = num(flag(rest, "--num_processes"));
    if (np) out.numProcesses = np;
    const mp = flag(rest, "--mixed_precision");
    if (mp) out.mixedPrecision = mp.toLowerCase();
    return out;
  }
  if (head === "llamafactory-cli" || head === "lmf") {
    const force = env.get("FORCE_TORCHRUN");
    const out: Omit<LaunchCommand, "line"> = { kind: "llamafactory-cli" };
    if (force !== undefined && !["0", "false", ""].includes(force.toLowerCase())) out.forceTorchrun = true;
    const per = num(env.get("NPROC_PER_NODE"));
    if (per && out.forceTorchrun) out.numProcesses = per * (num(env.get("NNODES")) ?? 1);
    return out;
  }
  if (/^python[\d.]*$/.test(head)) return { kind: "python", numProcesses: 1 };
  return undefined;
}

/** The variables a command sees, as text: those set before it, then its own `VAR=x` prefixes. */
function envOf(vars: ShellVars, own: ShellVars | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of own ? [vars, own] : [vars]) for (const [k, v] of m) out.set(k, v.map((w) => w.text).join(" "));
  return out;
}

/**
 * The first command in `text` (a script or a README) that names the config (`names` decides, on a word with
 * variables expanded and quotes removed) and starts a launcher this module reads.
 */
export function findLaunchCommand(text: string, mentions: string, names: (token: string) => boolean): LaunchCommand | undefined {
  const vars: ShellVars = new Map();
  for (const { line, text: raw } of logicalLines(text)) {
    // One logical line may hold several commands (`cd x && accelerate launch …`): each is read on its own.
    const { commands } = readShell(raw, undefined, vars);
    if (!commands.some((c) => c.words.some((w) => w.text.includes(mentions)))) continue;
    for (const c of commands) {
      const words = c.words.map((w) => w.text);
      if (!words.some((x) => names(x.replace(/^--?[\w-]+=/, "")))) continue;
      const parsed = parseCommand(words, envOf(vars, c.env));
      if (parsed) return { ...parsed, line };
    }
  }
  return undefined;
}

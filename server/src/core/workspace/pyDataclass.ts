/**
 * A small, bounded scanner of Python dataclass fields, read as TEXT (nothing is imported or executed):
 * enough to learn which tables and keys a fork's `torchtitan/config/job_config.py` (or a module named by
 * `job.custom_config_module`) defines. It reads `@dataclass` classes, their bases and their annotated
 * fields at the class body's own indentation; a field typed by another dataclass of the file (or whose
 * default_factory names one) is a nested table.
 *
 * What it cannot know it leaves open: a field typed by a class imported from elsewhere becomes an "open"
 * table (any key under it is accepted), so an incomplete scan never produces a false "unknown key".
 */
import { scanLines } from "./scan";

/** Bounds: files beyond these are only read up to them. */
export const PY_SCAN_MAX_LINES = 20000;
const MAX_CLASSES = 1000;
const MAX_DEPTH = 6;

export interface PyField {
  name: string;
  /** The annotation as written, without surrounding spaces. */
  annotation: string;
  /** The default expression as written, when any. */
  default?: string;
  /** 0-based line. */
  line: number;
}

export interface PyClass {
  name: string;
  bases: string[];
  fields: PyField[];
  line: number;
  dataclass: boolean;
}

export interface ScannedKey {
  /** Dotted TOML path. */
  path: string;
  /** Simple Python type when recognisable ("int", "float", "bool", "str", "list[str]"); else undefined. */
  type?: "int" | "float" | "bool" | "str" | "list[str]";
  /** 0-based line of the field. */
  line: number;
  /** The dataclass the field is declared in. */
  className: string;
}

export interface ScannedSchema {
  keys: ScannedKey[];
  /** Tables (dotted) declared in the file. */
  tables: string[];
  /** Tables whose dataclass is not in the file: any key under them is accepted. */
  openTables: string[];
}

/** Top-level (or nested) classes with their annotated fields. */
export function scanClasses(text: string): PyClass[] {
  const lines = scanLines(text, PY_SCAN_MAX_LINES);
  const out: PyClass[] = [];
  let inString: string | undefined;
  let decoratedDataclass = false;
  let cls: { c: PyClass; indent: number; bodyIndent?: number } | undefined;
  let depth = 0; // open brackets carried over from previous lines
  for (let i = 0; i < lines.length && out.length < MAX_CLASSES; i++) {
    const raw = lines[i]!;
    // Triple-quoted strings (docstrings) spanning lines.
    if (inString) {
      if (raw.includes(inString)) inString = undefined;
      continue;
    }
    const code = stripComment(raw);
    if (!code.trim()) continue;
    const indent = code.length - code.trimStart().length;
    const startsInBrackets = depth > 0;
    depth = Math.max(0, depth + bracketDelta(code));
    const triple = /("""|''')/.exec(code);
    if (triple && countOf(code, triple[1]!) % 2 === 1) inString = triple[1]!;
    if (startsInBrackets) continue;
    const trimmed = code.trim();
    if (cls && indent <= cls.indent) cls = undefined;
    if (trimmed.startsWith("@")) {
      if (/^@\s*(?:dataclasses\.)?dataclass\b/.test(trimmed)) decoratedDataclass = true;
      continue;
    }
    const cm = /^class\s+([A-Za-z_]\w*)\s*(?:\(([^)]*)\)\s*)?:/.exec(trimmed);
    if (cm) {
      const c: PyClass = { name: cm[1]!, bases: (cm[2] ?? "").split(",").map((b) => b.trim()).filter((b) => b && !b.includes("=")), fields: [], line: i, dataclass: decoratedDataclass };
      decoratedDataclass = false;
      out.push(c);
      cls = { c, indent };
      continue;
    }
    decoratedDataclass = false;
    if (!cls) continue;
    if (cls.bodyIndent === undefined) cls.bodyIndent = indent;
    if (indent !== cls.bodyIndent) continue;
    if (trimmed.startsWith('"""') || trimmed.startsWith("'''")) continue;
    const fm = /^([A-Za-z_]\w*)\s*:(.+)$/.exec(trimmed);
    if (!fm || fm[1]!.startsWith("_")) continue;
    const [annotation, def] = splitDefault(fm[2]!.trimStart() || fm[2]!);
    if (/^(typing\.)?ClassVar\b/.test(annotation)) continue;
    cls.c.fields.push({ name: fm[1]!, annotation, ...(def !== undefined ? { default: def } : {}), line: i });
  }
  return out;
}

function stripComment(line: string): string {
  let q: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (q) {
      if (ch === "\\") i++;
      else if (ch === q) q = undefined;
    } else if (ch === '"' || ch === "'") q = ch;
    else if (ch === "#") return line.slice(0, i);
  }
  return line;
}

function countOf(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

function bracketDelta(code: string): number {
  let d = 0;
  let q: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (q) {
      if (ch === "\\") i++;
      else if (ch === q) q = undefined;
    } else if (ch === '"' || ch === "'") q = ch;
    else if (ch === "(" || ch === "[" || ch === "{") d++;
    else if (ch === ")" || ch === "]" || ch === "}") d--;
  }
  return d;
}

/** Splits `Type = default` at the first `=` outside brackets and strings. */
function splitDefault(rest: string): [string, string | undefined] {
  let d = 0;
  let q: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i]!;
    if (q) {
      if (ch === "\\") i++;
      else if (ch === q) q = undefined;
    } else if (ch === '"' || ch === "'") q = ch;
    else if ("([{".includes(ch)) d++;
    else if (")]}".includes(ch)) d--;
    else if (ch === "=" && d === 0 && rest[i + 1] !== "=") return [rest.slice(0, i).trim(), rest.slice(i + 1).trim()];
  }
  return [rest.trim(), undefined];
}

const NOT_TABLES = new Set(["Literal", "Optional", "Union", "List", "Dict", "Any", "Tuple", "Set", "Callable", "Type", "Path", "None"]);

/** The class a field refers to when it is a table: its annotation, or its default_factory. */
function tableClassOf(f: PyField): string | undefined {
  let a = f.annotation.replace(/^["']|["']$/g, "").trim();
  const opt = /^(?:typing\.)?Optional\[(.+)\]$/.exec(a);
  if (opt) a = opt[1]!.trim();
  const orNone = /\|\s*None$/.exec(a);
  if (orNone) a = a.slice(0, orNone.index).trimEnd();
  a = a.replace(/^None\s*\|\s*/, "");
  const last = a.split(".").pop()!;
  if (/^[A-Z]\w*$/.test(last) && !NOT_TABLES.has(last)) return last;
  const fac = f.default && /default_factory\s*=\s*(?:[\w.]+\.)?([A-Z]\w*)\b/.exec(f.default);
  return fac ? fac[1] : undefined;
}

function simpleType(annotation: string): ScannedKey["type"] {
  const a = annotation.replace(/\s+/g, "").replace(/\|None$/, "").replace(/^Optional\[(.+)\]$/, "$1");
  if (a === "int" || a === "float" || a === "bool" || a === "str") return a;
  if (/^(list|List)\[str\]$/.test(a)) return "list[str]";
  return undefined;
}

/** Lines an `add_argument(` call may span before its flag string and its `type=` / `action=`. */
const ARG_CALL_LINES = 12;

/**
 * torchtitan's JobConfig before the dataclass rewrite (2025-02) was an argparse parser: each key is an
 * `add_argument("--section.key", type=..., default=...)` call (torchtitan/config_manager.py at v0.1.0 and
 * the forks of that era, e.g. `--training.dl_worker`). Read as text: the dotted flag names and a simple type
 * (`type=int|float|str`, `action="store_true"` is a bool, `type=string_list` a list of strings). Undefined when
 * the file has no such call.
 */
export function scanArgparseConfig(text: string): ScannedSchema | undefined {
  const lines = scanLines(text, PY_SCAN_MAX_LINES);
  const out: ScannedSchema = { keys: [], tables: [], openTables: [] };
  const tables = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.includes("add_argument(")) continue;
    // The call's text: this line and the following ones up to the next call.
    let call = lines[i]!.slice(lines[i]!.indexOf("add_argument("));
    for (let j = i + 1; j < lines.length && j <= i + ARG_CALL_LINES && !lines[j]!.includes("add_argument("); j++) {
      call += " " + lines[j]!.trim();
    }
    const flag = /^add_argument\( ?["']--([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)["']/.exec(call);
    if (!flag) continue;
    const path = flag[1]!;
    const table = path.slice(0, path.lastIndexOf("."));
    tables.add(table);
    const t = /\btype ?= ?(int|float|str|string_list)\b/.exec(call)?.[1];
    const type: ScannedKey["type"] = /\baction ?= ?["']store_(?:true|false)["']/.test(call) ? "bool" : t === "string_list" ? "list[str]" : (t as ScannedKey["type"]);
    out.keys.push({ path, line: i, className: "JobConfig", ...(type ? { type } : {}) });
  }
  if (!out.keys.length) return undefined;
  out.tables = [...tables];
  return out;
}

/**
 * The TOML tables and keys of the file's root dataclass (`JobConfig`, the last one defined), or of its
 * argparse parser (`scanArgparseConfig`, the pre-2025 JobConfig). Undefined when the file has neither.
 */
export function scanJobConfig(text: string): ScannedSchema | undefined {
  const classes = scanClasses(text);
  const byName = new Map<string, PyClass>();
  for (const c of classes) if (c.dataclass || !byName.has(c.name)) byName.set(c.name, c);
  // torchtitan's own JobConfig, else a fork's subclass of it (`class MyConfig(JobConfig)`, its base imported from
  // torchtitan: the subclass's fields are the tables it adds or replaces).
  const root = [...classes].reverse().find((c) => c.name === "JobConfig") ?? [...classes].reverse().find((c) => c.dataclass && c.bases.some((b) => b.split(".").pop() === "JobConfig"));
  if (!root) return undefined;
  const argparse = root.dataclass ? undefined : scanArgparseConfig(text);
  if (argparse) return argparse;
  const out: ScannedSchema = { keys: [], tables: [], openTables: [] };
  const fieldsOf = (c: PyClass, seen: Set<string>): PyField[] => {
    if (seen.has(c.name)) return [];
    seen.add(c.name);
    const inherited = c.bases.flatMap((b) => {
      const base = byName.get(b.split(".").pop()!);
      return base ? fieldsOf(base, seen) : [];
    });
    const own = new Set(c.fields.map((f) => f.name));
    return [...inherited.filter((f) => !own.has(f.name)), ...c.fields];
  };
  const visit = (c: PyClass, prefix: string, depth: number, stack: Set<string>) => {
    for (const f of fieldsOf(c, new Set())) {
      const path = prefix ? `${prefix}.${f.name}` : f.name;
      const t = tableClassOf(f);
      if (t) {
        const sub = byName.get(t);
        if (sub && depth < MAX_DEPTH && !stack.has(t)) {
          out.tables.push(path);
          visit(sub, path, depth + 1, new Set([...stack, t]));
        } else if (!sub) out.openTables.push(path);
        continue;
      }
      if (!prefix) continue; // a scalar at the root is not a TOML table
      const type = simpleType(f.annotation);
      out.keys.push({ path, line: f.line, className: c.name, ...(type ? { type } : {}) });
    }
  };
  visit(root, "", 0, new Set([root.name]));
  return out;
}

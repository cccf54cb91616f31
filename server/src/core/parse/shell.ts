/**
 * Launch scripts (`.sh`, `.bash`, `.slurm`, `.sbatch`) read as data, never run: the words of each command,
 * with shell variables and bash arrays expanded from the assignments written earlier in the same file, each
 * word keeping the source range it was written at (an argument that came through `$ARGS` points at its place
 * in `ARGS=(…)`). The frameworks that are configured on a command line (verl's Hydra overrides, Megatron-LM's
 * flags) read `shellScript(doc)`; the `ConfigDocument` itself carries only the comments (directives,
 * suppressions).
 *
 * This is the one reader of shell text: transformers' `launchLine.ts` reads each logical line of a run script
 * or README through `readShell` (passing its variables on), and keeps only the launchers' meaning.
 *
 * What is modelled: quotes ('…', "…"), backslash-newline continuations, `#` comments, `;` `&&` `||` `|` `&`
 * and newlines between commands, `VAR=value`, `export VAR=value`, `VAR=(…)` arrays (also over several lines),
 * a command's own `VAR=value` prefixes (its `env`, not kept after it), `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:=default}` (read as the default; it does not assign), `"${ARR[@]}"`, `eval "…"` (its
 * joined arguments read as commands, two levels deep). Not modelled
 * (the word stays as written, so a reader sees an unresolved `$…`): command substitution, arithmetic, functions and their arguments, control flow (every
 * branch is read in order), heredocs. Bounded: the part of the text `scan.ts` reads, at most MAX_WORDS words
 * per script and MAX_EXPANDED words per command, and a word that expansion would grow past MAX_WORD_CHARS stays
 * as written.
 */
import type { ConfigComment, ConfigDocument } from "../model/document";
import { LineIndex } from "../model/lineIndex";
import type { Range } from "../model/types";

/** Characters of a script that are read (a real launch script is a few kB). */
export const MAX_SHELL_CHARS = 256 * 1024;
const MAX_WORDS = 50_000;
const MAX_EXPANDED = 10_000;
/** Characters of one expanded word; a word that would grow past it (`A="$A$A"` repeated) stays as written. */
const MAX_WORD_CHARS = MAX_SHELL_CHARS;

export interface ShellWord {
  /** The word after quote removal and expansion. */
  text: string;
  /** Where the word (or the part of an assignment it came from) is written. */
  range: Range;
  /** Offsets of that range. */
  start: number;
  end: number;
}

export interface ShellCommand {
  /** The words after expansion; leading `VAR=value` prefixes are not included. */
  words: ShellWord[];
  /** Zero-based line of the command's first word. */
  line: number;
  /** The command's own `VAR=value` prefixes: bash gives them to this command only, they do not stay set. */
  env?: ShellVars;
}

/** The variables known at a point of a script: each one's words. */
export type ShellVars = Map<string, ShellWord[]>;

export interface ShellScript {
  commands: ShellCommand[];
}

interface RawWord {
  /** Parts: literal text, or a variable reference (with its default) to expand. */
  parts: ({ lit: string } | Ref)[];
  start: number;
  end: number;
  /** Text as written (for `VAR=(` detection). */
  raw: string;
}

type Token = { word: RawWord } | { sep: true; at: number };

/** A variable reference: `$NAME`, `${NAME}`, `${NAME[@]}`, `${NAME:-x}`, `${NAME-x}`, `${NAME:=x}`, `${NAME=x}`. */
interface Ref {
  ref: string;
  /** The default after `-`/`=` (`:=` assigns in bash too; here it is read as the default only). */
  def?: string;
  /** `:-`/`:=`: the default also replaces a variable set to the empty string. */
  colon: boolean;
  all: boolean;
  quoted: boolean;
}

const REF_SOURCE = String.raw`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(\[[@*]\])?(?:(:?)[-=]([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))`;
const REF_AT = new RegExp(`^${REF_SOURCE}`);
const REF_ALL = new RegExp(`${REF_SOURCE}`, "g");

function refOf(m: RegExpExecArray, quoted: boolean): Ref {
  const ref: Ref = { ref: m[1] ?? m[5]!, all: !!m[2], colon: m[3] === ":", quoted };
  if (m[4] !== undefined) ref.def = m[4];
  return ref;
}

/** Whether a reference takes its default: unset, or (`:-`/`:=`) set to the empty string. */
function takesDefault(p: Ref, set: boolean, empty: boolean): boolean {
  return p.def !== undefined && (!set || (p.colon && empty));
}

/** A value's words joined by blanks, or undefined past MAX_WORD_CHARS. */
function joinWords(v: ShellWord[]): string | undefined {
  let n = 0;
  for (const x of v) {
    n += x.text.length + 1;
    if (n > MAX_WORD_CHARS) return undefined;
  }
  return v.map((x) => x.text).join(" ");
}

/**
 * Expands the references in a string with string-valued variables (the same references and defaults as the
 * words of a script); a reference to an unset variable without a default stays as written.
 */
export function expandText(s: string, vars: ReadonlyMap<string, string>): string {
  return s.replace(REF_ALL, (m: string, a?: string, all?: string, colon?: string, def?: string, b?: string) => {
    const p = refOf([m, a, all, colon, def, b] as unknown as RegExpExecArray, false);
    const v = vars.get(p.ref);
    if (takesDefault(p, v !== undefined, v === "")) return p.def!;
    return v ?? m;
  });
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = text.length;
  let words = 0;
  while (i < n && words < MAX_WORDS) {
    const c = text[i]!;
    if (c === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) {
      i += text[i + 1] === "\n" ? 2 : 3;
      continue;
    }
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if (c === "\n" || c === "\r" || c === ";" || c === "|" || c === "&") {
      out.push({ sep: true, at: i });
      i++;
      continue;
    }
    if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "(" || c === ")") {
      out.push({ word: { parts: [{ lit: c }], start: i, end: i + 1, raw: c } });
      i++;
      continue;
    }
    // A word: up to an unquoted blank or separator.
    const start = i;
    const parts: RawWord["parts"] = [];
    let lit = "";
    const flush = () => {
      if (lit) parts.push({ lit });
      lit = "";
    };
    let quote: '"' | "'" | undefined;
    while (i < n) {
      const ch = text[i]!;
      if (quote === "'") {
        if (ch === "'") quote = undefined;
        else lit += ch;
        i++;
        continue;
      }
      if (ch === "\\" && i + 1 < n) {
        const nx = text[i + 1]!;
        if (nx === "\n") {
          i += 2;
          if (!quote) break;
          continue;
        }
        lit += nx;
        i += 2;
        continue;
      }
      if (ch === '"') {
        quote = quote ? undefined : '"';
        i++;
        continue;
      }
      if (ch === "'" && !quote) {
        quote = "'";
        i++;
        continue;
      }
      // An unquoted blank, separator or parenthesis ends the word (`VAR=(` then opens an array).
      if (!quote && (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === ";" || ch === "|" || ch === "&" || ch === "(" || ch === ")")) break;
      if (ch === "$") {
        const m = REF_AT.exec(text.slice(i, i + 256));
        if (m) {
          flush();
          parts.push(refOf(m, quote === '"'));
          i += m[0].length;
          continue;
        }
      }
      lit += ch;
      i++;
    }
    flush();
    out.push({ word: { parts, start, end: i, raw: text.slice(start, i) } });
    words++;
  }
  return out;
}

type Vars = ShellVars;

function litOf(w: RawWord): string | undefined {
  return w.parts.every((p) => "lit" in p) ? w.parts.map((p) => ("lit" in p ? p.lit : "")).join("") : undefined;
}

/** Expands one raw word: a lone unquoted (or array) reference becomes the variable's words; otherwise one word. */
function expand(w: RawWord, vars: Vars, lines: LineIndex, budget: { left: number }): ShellWord[] {
  const at = (text: string): ShellWord => ({ text, range: lines.range(w.start, w.end), start: w.start, end: w.end });
  if (w.parts.length === 1 && "ref" in w.parts[0]!) {
    const p = w.parts[0];
    const v = vars.get(p.ref);
    if (v && !takesDefault(p, true, v.every((x) => x.text === ""))) {
      // An unquoted $VAR splits into words; "$VAR" is one word; "${ARR[@]}" is every element.
      if (p.all || !p.quoted || v.length === 1) {
        budget.left -= v.length;
        return budget.left >= 0 ? v : [];
      }
      return [at(joinWords(v) ?? w.raw)];
    }
    if (p.def !== undefined) {
      // `${N:-$GPUS}`: a default that is itself one variable.
      const inner = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(p.def);
      const def = inner && vars.get(inner[1]!) ? (joinWords(vars.get(inner[1]!)!) ?? p.def) : p.def;
      return p.quoted ? [at(def)] : def.split(/\s+/).filter(Boolean).map(at);
    }
    return [at(`\${${p.ref}}`)];
  }
  let text = "";
  for (const p of w.parts) {
    if ("lit" in p) text += p.lit;
    else {
      const words = vars.get(p.ref);
      const v = words && joinWords(words);
      if (words && v === undefined) return [at(w.raw)];
      text += takesDefault(p, words !== undefined, v === "") ? p.def! : v ?? `\${${p.ref}}`;
      if (text.length > MAX_WORD_CHARS) return [at(w.raw)];
    }
  }
  return [at(text)];
}

/** Splits an unquoted scalar assignment's value into words, each with its own range inside the value. */
function splitValue(w: RawWord, valueStart: number, text: string, vars: Vars, lines: LineIndex, budget: { left: number }, quotedWhole: boolean): ShellWord[] {
  // A value that is only literal text inside one pair of quotes ("--a 1 --b 2"): one word per blank-separated part.
  const lit = litOf(w);
  if (lit !== undefined && quotedWhole) {
    const raw = text.slice(valueStart, w.end);
    const inner = raw.slice(1, -1);
    const out: ShellWord[] = [];
    const re = /\S+/g;
    for (let m = re.exec(inner); m; m = re.exec(inner)) {
      const s = valueStart + 1 + m.index;
      out.push({ text: m[0], range: lines.range(s, s + m[0].length), start: s, end: s + m[0].length });
    }
    return out;
  }
  const ex = expand({ ...w, start: valueStart }, vars, lines, budget);
  return ex.flatMap((x) => (/\s/.test(x.text) && x.start === valueStart ? x.text.split(/\s+/).filter(Boolean).map((t) => ({ ...x, text: t })) : [x]));
}

const ASSIGN = /^(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=/;

const cache = new WeakMap<ConfigDocument, ShellScript>();

/** The commands of a shell document (computed once per document). */
export function shellScript(doc: ConfigDocument): ShellScript {
  let s = cache.get(doc);
  if (!s) {
    s = readShell(doc.text.length > MAX_SHELL_CHARS ? doc.text.slice(0, MAX_SHELL_CHARS) : doc.text, doc.lines);
    cache.set(doc, s);
  }
  return s;
}

/**
 * The commands of `text`. `vars` holds the variables assigned before it (a caller reading a script piece by piece
 * passes the same map each time) and receives those it assigns.
 */
export function readShell(text: string, lines: LineIndex = new LineIndex(text), vars: Vars = new Map(), evalDepth = 0): ShellScript {
  const tokens = tokenize(text);
  const commands: ShellCommand[] = [];
  const budget = { left: MAX_EXPANDED * 8 };
  let i = 0;
  while (i < tokens.length) {
    // One command: tokens up to a separator (an open array runs across separators until its `)`).
    const words: ShellWord[] = [];
    let prefixOnly = true;
    let exportWord = false;
    // Prefix assignments (`A=1 cmd`): set while the command's words expand, then undone if a command follows.
    const saved: [string, ShellWord[] | undefined][] = [];
    const env: Vars = new Map();
    const setVar = (name: string, value: ShellWord[]) => {
      if (!exportWord) {
        saved.push([name, vars.get(name)]);
        env.set(name, value);
      }
      vars.set(name, value);
    };
    for (; i < tokens.length; i++) {
      const t = tokens[i]!;
      if ("sep" in t) {
        i++;
        break;
      }
      const w = t.word;
      if (prefixOnly && (w.raw === "export" || w.raw === "local" || w.raw === "readonly" || w.raw === "declare")) {
        exportWord = true;
        continue;
      }
      if (exportWord && /^-\w+$/.test(w.raw)) continue;
      const m = prefixOnly ? ASSIGN.exec(w.raw) : null;
      if (m && /^[A-Za-z_]/.test(w.raw)) {
        const name = m[1]!;
        const append = m[2] === "+";
        const valueStart = w.start + m[0].length;
        const next = tokens[i + 1];
        if (valueStart === w.end && next && "word" in next && next.word.raw === "(" && next.word.start === w.end) {
          // NAME=( words… ) over any number of lines; comments inside are skipped by the tokenizer.
          const items: ShellWord[] = [];
          let j = i + 2;
          for (; j < tokens.length; j++) {
            const u = tokens[j]!;
            if ("sep" in u) continue;
            if (u.word.raw === ")") break;
            items.push(...expand(u.word, vars, lines, budget));
            if (items.length > MAX_EXPANDED) break;
          }
          setVar(name, append ? [...(vars.get(name) ?? []), ...items] : items);
          i = j;
          continue;
        }
        // NAME=value: the value's parts after the `=`.
        const valueWord: RawWord = { parts: valuePartsAfter(w, m[0].length), start: valueStart, end: w.end, raw: text.slice(valueStart, w.end) };
        const quotedWhole = /^(["']).*\1$/s.test(valueWord.raw);
        const value = splitValue(valueWord, valueStart, text, vars, lines, budget, quotedWhole);
        setVar(name, append ? [...(vars.get(name) ?? []), ...value] : value);
        continue;
      }
      prefixOnly = false;
      if (w.raw === "(" || w.raw === ")") continue;
      words.push(...expand(w, vars, lines, budget));
      if (words.length > MAX_EXPANDED) break;
    }
    if (words.length) {
      for (let k = saved.length - 1; k >= 0; k--) {
        const [name, old] = saved[k]!;
        if (old) vars.set(name, old);
        else vars.delete(name);
      }
      const evaluated = words[0]!.text === "eval" && words.length > 1 && evalDepth < 2 ? evalCommands(words, vars, evalDepth) : undefined;
      if (evaluated) commands.push(...evaluated);
      else commands.push(env.size ? { words, line: words[0]!.range.start.line, env } : { words, line: words[0]!.range.start.line });
    }
    if (budget.left < 0) break;
  }
  return { commands };
}

/**
 * `eval "…"` / `eval "$CMD"`: bash joins the arguments with spaces and runs the result as shell text, in the
 * current shell (its assignments stay). The commands read from that text; each word points at the eval's
 * arguments (where the string was written, or the assignment it came through), since the joined text has no
 * place of its own in the file.
 */
function evalCommands(words: ShellWord[], vars: Vars, depth: number): ShellCommand[] | undefined {
  const args = words.slice(1);
  const inner = args.map((w) => w.text).join(" ");
  if (inner.length > MAX_WORD_CHARS) return undefined;
  const first = args[0]!;
  const last = args[args.length - 1]!;
  const at = first.range.start.line === last.range.start.line && first.start <= last.start ? { range: { start: first.range.start, end: last.range.end }, start: first.start, end: last.end } : { range: first.range, start: first.start, end: first.end };
  const sub = readShell(inner, new LineIndex(inner), vars, depth + 1);
  return sub.commands.map((c) => ({ ...c, words: c.words.map((w) => ({ text: w.text, ...at })), line: words[0]!.range.start.line }));
}

/** The parts of an assignment word after `NAME=` (the literal prefix removed from the first part). */
function valuePartsAfter(w: RawWord, prefixLen: number): RawWord["parts"] {
  const out: RawWord["parts"] = [];
  let skip = prefixLen;
  for (const p of w.parts) {
    if (skip > 0 && "lit" in p) {
      if (p.lit.length <= skip) {
        skip -= p.lit.length;
        continue;
      }
      out.push({ lit: p.lit.slice(skip) });
      skip = 0;
    } else out.push(p);
  }
  return out;
}

/** A shell document: comments for directives and suppressions; the commands through `shellScript`. */
export function parseShellDocument(uri: string, text: string): ConfigDocument {
  const lines = new LineIndex(text);
  const comments: ConfigComment[] = [];
  const scanned = text.length > MAX_SHELL_CHARS ? text.slice(0, MAX_SHELL_CHARS) : text;
  const re = /^[ \t]*#(.*)$/gm;
  for (let m = re.exec(scanned); m; m = re.exec(scanned)) {
    if (m.index === 0 && m[1]!.startsWith("!")) continue;
    const start = m.index + m[0].indexOf("#");
    comments.push({ line: lines.positionAt(start).line, text: m[1]!.trim(), range: lines.range(start, m.index + m[0].length) });
  }
  return { uri, format: "shell", text, lines, entries: [], sections: [], comments, syntaxErrors: [] };
}

/**
 * The Python front end: a torchtitan config registry (`config_registry.py`, a fork's module) parsed with
 * `@lezer/python` (pure JS, error tolerant, keeps positions) into the small model the static evaluator
 * reads (frameworks/torchtitan/python/evaluate.ts). Nothing is executed. Any other Python file is refused
 * by a scan of the raw text before any parsing, so ordinary Python costs one `includes` per edit.
 */
import { parser } from "@lezer/python";
import { TreeFragment, type SyntaxNode, type Tree } from "@lezer/common";
import type { ConfigComment, ConfigDocument, SyntaxError } from "../model/document";
import { LineIndex } from "../model/lineIndex";
import type { Range } from "../model/types";
import { MAX_PY_NESTING, nestingReason, pyNestingScan, skipReason, type PyNestingScan } from "./guard";

/** How deep an expression is converted; deeper parts become `other` (real registries nest under 10). */
export const MAX_PY_EXPR_DEPTH = 48;
/** Statements read per function body, and functions per module (a 1,000-line registry has about 80). */
export const MAX_PY_STATEMENTS = 2_000;

export interface PyKwarg {
  name: string;
  nameRange: Range;
  value: PyExpr;
  /** `name=value` as written. */
  range: Range;
}

export type PyExpr =
  | { kind: "num"; value: number; raw: string; range: Range }
  | { kind: "str"; value: string; range: Range }
  | { kind: "bool"; value: boolean; range: Range }
  | { kind: "none"; range: Range }
  | { kind: "name"; name: string; range: Range }
  | { kind: "attr"; object: PyExpr; name: string; range: Range }
  | { kind: "call"; callee: PyExpr; args: PyExpr[]; kwargs: PyKwarg[]; range: Range; argsRange: Range; hasStarArgs: boolean }
  | { kind: "list"; items: PyExpr[]; range: Range }
  | { kind: "unary"; op: string; operand: PyExpr; range: Range }
  | { kind: "binop"; op: string; left: PyExpr; right: PyExpr; range: Range }
  /** Anything the evaluator does not read (comprehension, f-string, subscript, lambda, ...): its text, cut. */
  | { kind: "other"; text: string; range: Range };

export type PyStmt =
  | { kind: "assign"; targets: PyExpr[]; value: PyExpr; range: Range }
  | { kind: "return"; value?: PyExpr; range: Range }
  /** A statement the evaluator cannot follow: a loop, an `if`, an augmented assignment, a call for its effect. */
  | { kind: "other"; what: string; text: string; range: Range };

export interface PyFunction {
  name: string;
  nameRange: Range;
  range: Range;
  /** The `def ...:` line up to the colon (the code lens sits on it). */
  headerRange: Range;
  params: string[];
  /** The return annotation as written, e.g. "Trainer.Config". */
  returns?: string;
  body: PyStmt[];
}

export interface PyImport {
  /** The module as written, with leading dots for relative imports ("torchtitan.trainer", "..base"). */
  module: string;
  /** `from M import a as b` → [{ name: "a", asName: "b" }]; `import M as x` → [{ name: "", asName: "x" }]. */
  names: { name: string; asName: string }[];
  range: Range;
}

/** A class at module level (and the classes nested in it, one level): torchtitan's trainer subclasses and their Config. */
export interface PyClass {
  name: string;
  nameRange: Range;
  /** The base classes as written, whitespace removed ("Trainer", "Trainer.Config", "T.Config"). */
  bases: string[];
  /** Names the class body assigns (`training: TrainingConfig = field(...)`, `x = 1`). */
  fields: string[];
  /** Attributes its methods assign (`self.optimizer = …` in `__post_init__`): effects the evaluator does not follow. */
  selfAssigns: string[];
  nested: PyClass[];
}

export interface PyModule {
  imports: PyImport[];
  functions: PyFunction[];
  classes: PyClass[];
  /** Module-level `NAME = expr` (last wins), for constants. */
  assigns: Map<string, { value: PyExpr; range: Range }>;
  /** Positions of the parser's error nodes (the file is read around them). */
  errors: SyntaxError[];
  lines: LineIndex;
}

/** True when the raw text may be a torchtitan config module; false costs a couple of `includes`. */
export function mayBeTorchtitanPython(text: string): boolean {
  return text.includes("torchtitan") && text.includes("Config");
}

const modules = new WeakMap<ConfigDocument, PyModule>();

/** The parsed module behind a Python `ConfigDocument` (undefined for a file refused by the pre-check). */
export function pyModuleOf(doc: ConfigDocument): PyModule | undefined {
  return modules.get(doc);
}

/**
 * A Python document. The `ConfigDocument` carries the comments (directives and suppressions work as in
 * TOML); its entries stay empty: the evaluator builds one view per config function from the module.
 */
export function parsePythonDocument(uri: string, text: string): ConfigDocument {
  const lines = linesOf(text);
  const doc: ConfigDocument = { uri, format: "python", text, lines, entries: [], sections: [], comments: [], syntaxErrors: [] };
  const skipped = skipReason(text);
  if (skipped) return { ...doc, skipped };
  if (!mayBeTorchtitanPython(text)) return doc;
  // The parser's time grows with nesting: bound it before parsing (issue #33), as TOML's guard does.
  const deep = nestingLineOf(text);
  if (deep !== undefined) return { ...doc, skipped: nestingReason(MAX_PY_NESTING, deep) };
  const { module, comments } = parsePythonModule(text, lines);
  doc.comments = comments;
  modules.set(doc, module);
  return doc;
}

/** The last Python document's nesting pass: the next one (a keystroke later) passes over the edited lines only. */
let lastScan: PyNestingScan | undefined;

/** `pyNestingLine(text)`, from the last document's pass when most of the text is unchanged (issue #36). */
function nestingLineOf(text: string): number | undefined {
  const prev = lastScan;
  let scan: PyNestingScan;
  if (prev && prev.text === text) scan = prev;
  else if (prev && prev.line === undefined) {
    const prefix = commonPrefix(prev.text, text);
    const suffix = commonSuffix(prev.text, text, Math.min(prev.text.length, text.length) - prefix);
    scan = prefix + suffix >= text.length / 2 ? pyNestingScan(text, prev, prefix, suffix) : pyNestingScan(text);
  } else scan = pyNestingScan(text);
  lastScan = scan;
  return scan.line;
}

/** The last Python document's line index: the next one (a keystroke later) is derived from it. */
let lastLines: LineIndex | undefined;

/** `text`'s line index, from the last document's when most of the text is unchanged (issue #36). */
function linesOf(text: string): LineIndex {
  const prev = lastLines;
  let lines: LineIndex | undefined;
  if (prev && prev.text !== text) {
    const prefix = commonPrefix(prev.text, text);
    const suffix = commonSuffix(prev.text, text, Math.min(prev.text.length, text.length) - prefix);
    if (prefix + suffix >= text.length / 2) lines = LineIndex.afterEdit(prev, text, prefix, suffix);
  }
  lines ??= prev?.text === text ? prev : new LineIndex(text);
  lastLines = lines;
  return lines;
}

/** The last few syntax trees parsed, for the incremental parse of an edited text (issue #36). */
const RECENT_TREES = 4;
const recentTrees: { text: string; fragments: readonly TreeFragment[]; errors: boolean }[] = [];

/** True when the tree holds an error node (one cursor walk). */
function hasErrors(tree: Tree): boolean {
  const cursor = tree.cursor();
  do if (cursor.type.isError) return true;
  while (cursor.next());
  return false;
}

/**
 * Lezer's tree for `text`, reusing the fragments of a recent tree whose text shares a prefix and a suffix
 * with this one (a keystroke's edit of the document the server just analysed): the parser re-reads only the
 * changed region and what it touches, and builds the same tree a fresh parse would (its incremental-parsing
 * contract; `test/python-incremental-parse.test.ts` compares them over random edits). `incremental: false`
 * parses from scratch.
 */
export function pythonTree(text: string, incremental = true): Tree {
  let { tree, reused } = parseTree(text, incremental);
  let errors = hasErrors(tree);
  // Lezer's reuse is exact for text that parses; where the new text has an error, recovery around reused
  // fragments may differ from a fresh parse's: that text is parsed again from scratch.
  if (reused && errors) {
    tree = parser.parse(text);
    errors = hasErrors(tree);
  }
  if (incremental) remember(text, tree, errors);
  return tree;
}

/** The length of the common prefix of two strings (compared in chunks natively, then by character). */
function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let n = 0;
  for (let step = 4096; step >= 1; step >>= 3) while (n + step <= max && a.substr(n, step) === b.substr(n, step)) n += step;
  return n;
}

/** The length of the common suffix of two strings, at most `max`. */
function commonSuffix(a: string, b: string, max: number): number {
  let n = 0;
  for (let step = 4096; step >= 1; step >>= 3) while (n + step <= max && a.substr(a.length - n - step, step) === b.substr(b.length - n - step, step)) n += step;
  return n;
}

/** `text` parsed, with a recent error-free tree's fragments when it shares most of its text (`reused`). */
function parseTree(text: string, incremental: boolean): { tree: Tree; reused: boolean } {
  let best: { fragments: readonly TreeFragment[]; prefix: number; suffix: number; oldLength: number } | undefined;
  if (incremental) {
    for (const r of recentTrees) {
      // A tree with errors is not reused: its error recovery need not match the new text's (a fragment parsed
      // inside an unclosed call, reused after it, gave another tree than a fresh parse).
      if (r.errors) continue;
      const prefix = commonPrefix(r.text, text);
      const suffix = commonSuffix(r.text, text, Math.min(r.text.length, text.length) - prefix);
      if (!best || prefix + suffix > best.prefix + best.suffix) best = { fragments: r.fragments, prefix, suffix, oldLength: r.text.length };
    }
  }
  // Worth it only when most of the text is unchanged.
  const reuse = best && best.prefix + best.suffix >= text.length / 2 ? best : undefined;
  const fragments = reuse ? TreeFragment.applyChanges(reuse.fragments, [{ fromA: reuse.prefix, toA: reuse.oldLength - reuse.suffix, fromB: reuse.prefix, toB: text.length - reuse.suffix }]) : undefined;
  return { tree: fragments ? parser.parse(text, fragments) : parser.parse(text), reused: !!fragments };
}

/** Keeps `tree` as the most recent one (`errors`: whether it holds an error node). */
function remember(text: string, tree: Tree, errors: boolean): void {
  const i = recentTrees.findIndex((r) => r.text === text);
  if (i >= 0) recentTrees.splice(i, 1);
  recentTrees.unshift({ text, fragments: TreeFragment.addTree(tree), errors });
  if (recentTrees.length > RECENT_TREES) recentTrees.length = RECENT_TREES;
}

/** Forgets the recent trees and functions: the next parse is a fresh one (tests compare the two). */
export function forgetPythonTrees(): void {
  recentTrees.length = 0;
  previousFunctions = new Map();
  previousWalks = new Map();
  lastLines = undefined;
  lastScan = undefined;
}

/** Syntax errors kept per module (the first ones, in reading order). */
const MAX_PY_ERRORS = 20;

/** The comments and error nodes of one top-level statement, found on `line` (issue #36's incremental walk). */
interface StatementWalk {
  line: number;
  comments: ConfigComment[];
  /** Its first MAX_PY_ERRORS error nodes. */
  errors: SyntaxError[];
  hasErrors: boolean;
}
/** The last module's statements' walks, by column, node type and text. */
let previousWalks = new Map<string, StatementWalk>();

/** Walks one top-level statement's subtree (depth first, in reading order) for its comments and error nodes. */
function walkStatement(node: SyntaxNode, text: string, lines: LineIndex, line: number): StatementWalk {
  const w: StatementWalk = { line, comments: [], errors: [], hasErrors: false };
  const cursor = node.cursor();
  let depth = 0;
  for (;;) {
    if (cursor.name === "Comment") {
      const raw = text.slice(cursor.from, cursor.to);
      w.comments.push({ line: lines.positionAt(cursor.from).line, text: raw.replace(/^#/, "").trim(), range: lines.range(cursor.from, cursor.to) });
    } else if (cursor.type.isError) {
      w.hasErrors = true;
      if (w.errors.length < MAX_PY_ERRORS) w.errors.push({ message: "Python syntax error", range: lines.range(cursor.from, Math.max(cursor.to, cursor.from)) });
    }
    if (cursor.firstChild()) {
      depth++;
      continue;
    }
    for (;;) {
      if (depth === 0) return w;
      if (cursor.nextSibling()) break;
      cursor.parent();
      depth--;
    }
  }
}

/** A walk of the same statement text moved to `line`: every position moves by as many lines, columns stay. */
function shiftWalk(w: StatementWalk, line: number): StatementWalk {
  const d = line - w.line;
  const r = (x: Range): Range => ({ start: { line: x.start.line + d, character: x.start.character }, end: { line: x.end.line + d, character: x.end.character } });
  return { line, comments: w.comments.map((c) => ({ line: c.line + d, text: c.text, range: r(c.range) })), errors: w.errors.map((e) => ({ message: e.message, range: r(e.range) })), hasErrors: w.hasErrors };
}

/** A function of the last module built, by its place (`line:character:statements before it`). */
interface ReusedFunction {
  text: string;
  fn: PyFunction;
  /** Statements it read (MAX_PY_STATEMENTS counts them over the module). */
  statements: number;
}
let previousFunctions = new Map<string, ReusedFunction>();

/** Parses a module (also the workspace modules an import leads to). */
export function parsePythonModule(text: string, lines: LineIndex = new LineIndex(text)): { module: PyModule; comments: ConfigComment[] } {
  const module: PyModule = { imports: [], functions: [], classes: [], assigns: new Map(), errors: [], lines };
  let comments: ConfigComment[] = [];
  // Comments and error nodes anywhere in the tree, one top-level statement at a time; it also tells whether the
  // tree has errors, which decides whether an incremental parse stands (see pythonTree). A statement of the same
  // kind and text at the same column as one of the last module built reuses that one's lists (shifted when it
  // moved to other lines), so a keystroke walks only the statements it changed (issue #36).
  const walk = (t: Tree): boolean => {
    comments = [];
    module.errors = [];
    let errors = false;
    const built = new Map<string, StatementWalk>();
    for (let c = t.topNode.firstChild; c; c = c.nextSibling) {
      const start = lines.positionAt(c.from);
      const key = `${start.character}:${c.type.id}:${text.slice(c.from, c.to)}`;
      let w = built.get(key) ?? previousWalks.get(key);
      if (!w) w = walkStatement(c, text, lines, start.line);
      else if (w.line !== start.line) w = shiftWalk(w, start.line);
      built.set(key, w);
      for (const k of w.comments) comments.push(k);
      if (w.hasErrors) {
        errors = true;
        for (const e of w.errors) if (module.errors.length < MAX_PY_ERRORS) module.errors.push(e);
      }
    }
    previousWalks = built;
    return errors;
  };
  let { tree, reused } = parseTree(text, true);
  let errors = walk(tree);
  if (reused && errors) {
    tree = parser.parse(text);
    errors = walk(tree);
  }
  remember(text, tree, errors);
  const r = (n: SyntaxNode): Range => lines.range(n.from, n.to);
  const src = (n: SyntaxNode): string => text.slice(n.from, n.to);
  const cut = (s: string): string => (s.length > 60 ? `${s.slice(0, 57)}...` : s).replace(/\s+/g, " ");
  let statements = 0;
  const builtFunctions = new Map<string, ReusedFunction>();

  const expr = (n: SyntaxNode | null, depth: number): PyExpr => {
    if (!n) return { kind: "other", text: "", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    const range = r(n);
    if (depth > MAX_PY_EXPR_DEPTH) return { kind: "other", text: cut(src(n)), range };
    switch (n.name) {
      case "Number": {
        const raw = src(n);
        const v = Number(raw.replace(/_/g, ""));
        return Number.isFinite(v) ? { kind: "num", value: v, raw, range } : { kind: "other", text: raw, range };
      }
      case "String": {
        const s = stringLiteral(src(n));
        return s === undefined ? { kind: "other", text: cut(src(n)), range } : { kind: "str", value: s, range };
      }
      case "ContinuedString": {
        let out = "";
        for (let c = n.firstChild; c; c = c.nextSibling) {
          const s = c.name === "String" ? stringLiteral(src(c)) : undefined;
          if (s === undefined) return { kind: "other", text: cut(src(n)), range };
          out += s;
        }
        return { kind: "str", value: out, range };
      }
      case "Boolean":
        return { kind: "bool", value: src(n) === "True", range };
      case "None":
        return { kind: "none", range };
      case "VariableName":
        return { kind: "name", name: src(n), range };
      case "ParenthesizedExpression": {
        const inner = n.firstChild?.nextSibling;
        return inner && inner.name !== ")" ? expr(inner, depth + 1) : { kind: "other", text: cut(src(n)), range };
      }
      case "MemberExpression": {
        const obj = n.firstChild;
        const prop = n.lastChild;
        if (obj && prop && prop.name === "PropertyName" && obj.nextSibling?.name === ".") return { kind: "attr", object: expr(obj, depth + 1), name: src(prop), range };
        return { kind: "other", text: cut(src(n)), range };
      }
      case "CallExpression": {
        const callee = n.firstChild;
        const argList = n.lastChild;
        if (!callee || !argList || argList.name !== "ArgList") return { kind: "other", text: cut(src(n)), range };
        const args: PyExpr[] = [];
        const kwargs: PyKwarg[] = [];
        let hasStarArgs = false;
        for (let c = argList.firstChild; c; c = c.nextSibling) {
          if (c.name === "(" || c.name === ")" || c.name === ",") continue;
          if (c.name === "ArithOp" && (src(c) === "*" || src(c) === "**")) {
            hasStarArgs = true;
            c = c.nextSibling ?? c;
            continue;
          }
          if (c.name === "VariableName" && c.nextSibling?.name === "AssignOp") {
            const valueNode = c.nextSibling.nextSibling;
            const value = expr(valueNode, depth + 1);
            kwargs.push({ name: src(c), nameRange: r(c), value, range: lines.range(c.from, valueNode ? valueNode.to : c.to) });
            c = valueNode ?? c.nextSibling;
            continue;
          }
          args.push(expr(c, depth + 1));
        }
        return { kind: "call", callee: expr(callee, depth + 1), args, kwargs, range, argsRange: r(argList), hasStarArgs };
      }
      case "ArrayExpression":
      case "TupleExpression": {
        const items: PyExpr[] = [];
        for (let c = n.firstChild; c; c = c.nextSibling) {
          if (c.name === "[" || c.name === "]" || c.name === "(" || c.name === ")" || c.name === ",") continue;
          items.push(expr(c, depth + 1));
        }
        return { kind: "list", items, range };
      }
      case "UnaryExpression": {
        const op = n.firstChild;
        const operand = op?.nextSibling;
        return op && operand ? { kind: "unary", op: src(op), operand: expr(operand, depth + 1), range } : { kind: "other", text: cut(src(n)), range };
      }
      case "BinaryExpression": {
        const left = n.firstChild;
        const op = left?.nextSibling;
        const right = op?.nextSibling;
        return left && op && right ? { kind: "binop", op: src(op), left: expr(left, depth + 1), right: expr(right, depth + 1), range } : { kind: "other", text: cut(src(n)), range };
      }
      default:
        return { kind: "other", text: cut(src(n)), range };
    }
  };

  const statement = (n: SyntaxNode, out: PyStmt[]): void => {
    if (++statements > MAX_PY_STATEMENTS) return;
    const range = r(n);
    switch (n.name) {
      case "AssignStatement": {
        // a = b = value: every child before an AssignOp is a target; the last expression is the value.
        const parts: SyntaxNode[] = [];
        for (let c = n.firstChild; c; c = c.nextSibling) if (c.name !== "AssignOp" && c.name !== "TypeDef" && c.name !== ",") parts.push(c);
        const valueNode = parts.pop();
        if (!valueNode || !parts.length) {
          out.push({ kind: "other", what: "assignment", text: cut(src(n)), range });
          return;
        }
        out.push({ kind: "assign", targets: parts.map((p) => expr(p, 0)), value: expr(valueNode, 0), range });
        return;
      }
      case "ReturnStatement": {
        const v = n.firstChild?.nextSibling;
        out.push(v ? { kind: "return", value: expr(v, 0), range } : { kind: "return", range });
        return;
      }
      case "ExpressionStatement": {
        // A docstring or a bare literal changes nothing; a call might (named "not followed" by the evaluator).
        const c = n.firstChild;
        if (c && (c.name === "String" || c.name === "ContinuedString" || c.name === "Number")) return;
        out.push({ kind: "other", what: c?.name === "CallExpression" ? "call" : "expression", text: cut(src(n)), range });
        return;
      }
      case "PassStatement":
      case "Comment":
        return;
      case "FunctionDefinition":
      case "DecoratedStatement":
      case "ImportStatement":
        // A nested def or a local import binds a name; a call of it is what the evaluator judges.
        return;
      case "AssertStatement":
        // An assert only stops the function; the values it checks are unchanged.
        return;
      case "ForStatement":
        out.push({ kind: "other", what: "for loop", text: cut(src(n).split("\n")[0]!), range });
        return;
      case "WhileStatement":
        out.push({ kind: "other", what: "while loop", text: cut(src(n).split("\n")[0]!), range });
        return;
      case "IfStatement":
        out.push({ kind: "other", what: "if statement", text: cut(src(n).split("\n")[0]!), range });
        return;
      case "UpdateStatement":
        out.push({ kind: "other", what: "augmented assignment", text: cut(src(n)), range });
        return;
      default:
        out.push({ kind: "other", what: n.name.replace(/Statement$/, " statement").toLowerCase(), text: cut(src(n).split("\n")[0]!), range });
    }
  };

  const functionDef = (n: SyntaxNode): void => {
    // The same text at the same place, after as many statements, gives the same function: the previous model's
    // is reused (issue #36: an edit re-derives only the top-level statements it changed).
    const start = lines.positionAt(n.from);
    const key = `${start.line}:${start.character}:${Math.min(statements, MAX_PY_STATEMENTS + 1)}`;
    const source = text.slice(n.from, n.to);
    const before = previousFunctions.get(key);
    if (before && before.text === source) {
      statements += before.statements;
      module.functions.push(before.fn);
      builtFunctions.set(key, before);
      return;
    }
    const from = statements;
    const built = buildFunction(n);
    if (built) builtFunctions.set(key, { text: source, fn: built, statements: statements - from });
  };

  const buildFunction = (n: SyntaxNode): PyFunction | undefined => {
    const nameNode = n.getChild("VariableName");
    const body = n.getChild("Body");
    if (!nameNode || !body) return undefined;
    const params: string[] = [];
    const paramList = n.getChild("ParamList");
    if (paramList) for (let c = paramList.firstChild; c; c = c.nextSibling) if (c.name === "VariableName") params.push(src(c));
    const typeDef = n.getChild("TypeDef");
    const stmts: PyStmt[] = [];
    for (let c = body.firstChild; c; c = c.nextSibling) if (c.name !== ":") statement(c, stmts);
    const fn: PyFunction = { name: src(nameNode), nameRange: r(nameNode), range: r(n), headerRange: lines.range(n.from, body.from + 1), params, body: stmts };
    if (typeDef?.lastChild) fn.returns = src(typeDef.lastChild).replace(/\s+/g, "");
    module.functions.push(fn);
    return fn;
  };

  const classDef = (n: SyntaxNode, depth: number): PyClass | undefined => {
    const nameNode = n.getChild("VariableName");
    if (!nameNode) return undefined;
    const bases: string[] = [];
    const args = n.getChild("ArgList");
    if (args) for (let c = args.firstChild; c && bases.length < 16; c = c.nextSibling) if (c.name === "VariableName" || c.name === "MemberExpression") bases.push(src(c).replace(/\s+/g, ""));
    const cls: PyClass = { name: src(nameNode), nameRange: r(nameNode), bases, fields: [], selfAssigns: [], nested: [] };
    const body = n.getChild("Body");
    let seen = 0;
    for (let c = body?.firstChild; c && seen++ < MAX_PY_STATEMENTS; c = c.nextSibling) {
      const inner = c.name === "ClassDefinition" ? c : c.name === "DecoratedStatement" ? c.getChild("ClassDefinition") : null;
      if (inner && depth === 0) {
        const k = classDef(inner, 1);
        if (k) cls.nested.push(k);
      } else if (c.name === "AssignStatement" && c.firstChild?.name === "VariableName" && cls.fields.length < 64) cls.fields.push(src(c.firstChild));
      else if (c.name === "FunctionDefinition" || c.name === "DecoratedStatement") {
        // `self.X = …` / `setattr(self, "X", …)` in a method; the regex is linear (one class, no nesting).
        const body = src(c).slice(0, 64_000);
        const assign = /self\.([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)|setattr\(self,[ \t]*["']([A-Za-z_][A-Za-z0-9_]*)["']/g;
        for (let m = assign.exec(body); m && cls.selfAssigns.length < 64; m = assign.exec(body)) cls.selfAssigns.push((m[1] ?? m[2])!);
      }
    }
    return cls;
  };

  const importStatement = (n: SyntaxNode): void => {
    const kids: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) kids.push(c);
    const range = r(n);
    if (kids[0]?.name === "from") {
      let i = 1;
      let mod = "";
      while (i < kids.length && kids[i]!.name !== "import") mod += src(kids[i++]!);
      const names: PyImport["names"] = [];
      for (i++; i < kids.length; i++) {
        const k = kids[i]!;
        if (k.name !== "VariableName") continue;
        if (kids[i + 1]?.name === "as" && kids[i + 2]?.name === "VariableName") {
          names.push({ name: src(k), asName: src(kids[i + 2]!) });
          i += 2;
        } else names.push({ name: src(k), asName: src(k) });
      }
      module.imports.push({ module: mod, names, range });
      return;
    }
    // import a.b.c [as x]
    let mod = "";
    let i = 1;
    while (i < kids.length && kids[i]!.name !== "as" && kids[i]!.name !== ",") mod += src(kids[i++]!);
    const asName = kids[i]?.name === "as" && kids[i + 1] ? src(kids[i + 1]!) : mod.split(".")[0]!;
    module.imports.push({ module: mod, names: [{ name: "", asName }], range });
  };

  const top = tree.topNode;
  for (let c = top.firstChild; c; c = c.nextSibling) {
    if (module.functions.length > MAX_PY_STATEMENTS) break;
    switch (c.name) {
      case "FunctionDefinition":
        functionDef(c);
        break;
      case "DecoratedStatement": {
        const f = c.getChild("FunctionDefinition");
        if (f) functionDef(f);
        const k = c.getChild("ClassDefinition");
        const cls = k && module.classes.length < MAX_PY_STATEMENTS ? classDef(k, 0) : undefined;
        if (cls) module.classes.push(cls);
        break;
      }
      case "ClassDefinition": {
        const cls = module.classes.length < MAX_PY_STATEMENTS ? classDef(c, 0) : undefined;
        if (cls) module.classes.push(cls);
        break;
      }
      case "ImportStatement":
        importStatement(c);
        break;
      case "AssignStatement": {
        const out: PyStmt[] = [];
        statement(c, out);
        const s = out[0];
        if (s?.kind === "assign") for (const t of s.targets) if (t.kind === "name") module.assigns.set(t.name, { value: s.value, range: s.range });
        break;
      }
      default:
        break;
    }
  }
  previousFunctions = builtFunctions;
  return { module, comments };
}

/** A Python string literal's value (plain, raw, single or triple quoted); undefined for f-strings and bytes. */
function stringLiteral(raw: string): string | undefined {
  const m = /^([rRuU]?)('''|"""|'|")/.exec(raw);
  if (!m) return undefined;
  const q = m[2]!;
  if (!raw.endsWith(q) || raw.length < m[0].length + q.length) return undefined;
  const body = raw.slice(m[0].length, raw.length - q.length);
  if (m[1]!.toLowerCase() === "r") return body;
  return body.replace(/\\(.)/g, (_, ch: string) => (ch === "n" ? "\n" : ch === "t" ? "\t" : ch));
}

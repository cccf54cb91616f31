/**
 * Issue #18, class-level guard: no regular expression in server/src may backtrack super-linearly on file
 * text. Every regex literal and every `new RegExp(...)` built at module load is checked by
 * test/support/regexLint.ts for nested or adjacent unbounded repetitions over overlapping characters, and
 * for an unanchored leading repetition that can fail after it. A pattern that only ever sees bounded
 * text may be allowed below, with the bound that makes it safe; the list must stay short and justified.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { lintRegex } from "./support/regexLint";

const ROOT = resolve(__dirname, "..");
const SRC = join(ROOT, "server/src");

/**
 * `file:pattern` → why it is safe. Empty: the 17 patterns listed here before were rewritten (issue #18),
 * by hand (completion's header and `key =` scanners, the suppression's codes list, trailing-blank and
 * trailing-separator trims) or as regexes whose repetitions no longer meet (`\s*(?:==\s*)?`,
 * `\d+(?:\.\d*)?`, `\s(.*)` + trimStart).
 */
const ALLOWED: Record<string, string> = {};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

interface Found {
  file: string;
  line: number;
  source: string;
  flags: string;
  /** Built with `new RegExp(...)` (interpolations resolved as staticString says). */
  constructed?: boolean;
  /** A constructed pattern whose text could not be read statically. */
  unreadable?: boolean;
}

/**
 * What an interpolation in a `new RegExp(`...${x}...`)` stands for: a const string of the same file is
 * inlined (its own interpolations too); anything else is a name or a number put in by the code (a package
 * name, a variable name, a digit count), linted as one literal character (a digit inside `{...}`).
 */
function constStrings(sf: ts.SourceFile): Map<string, ts.Expression> {
  const out = new Map<string, ts.Expression>();
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && ts.isVariableDeclarationList(n.parent) && n.parent.flags & ts.NodeFlags.Const) out.set(n.name.text, n.initializer);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function staticString(e: ts.Expression, consts: Map<string, ts.Expression>, depth = 0): string | undefined {
  if (depth > 8) return undefined;
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  if (ts.isParenthesizedExpression(e)) return staticString(e.expression, consts, depth + 1);
  if (ts.isIdentifier(e)) {
    const init = consts.get(e.text);
    return init ? staticString(init, consts, depth + 1) : undefined;
  }
  if (ts.isPropertyAccessExpression(e) && e.name.text === "source" && ts.isIdentifier(e.expression)) {
    const init = consts.get(e.expression.text);
    return init && ts.isRegularExpressionLiteral(init) ? init.text.slice(1, init.text.lastIndexOf("/")) : undefined;
  }
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const a = staticString(e.left, consts, depth + 1);
    const b = staticString(e.right, consts, depth + 1);
    return a !== undefined && b !== undefined ? a + b : undefined;
  }
  if (ts.isTemplateExpression(e)) {
    let out = e.head.text;
    for (const span of e.templateSpans) {
      const inner = staticString(span.expression, consts, depth + 1);
      out += inner !== undefined ? inner : out.endsWith("{") ? "4" : "a";
      out += span.literal.text;
    }
    return out;
  }
  return undefined;
}

function literals(file: string): Found[] {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const consts = constStrings(sf);
  const out: Found[] = [];
  const at = (n: ts.Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const visit = (n: ts.Node): void => {
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const t = n.getText(sf);
      const slash = t.lastIndexOf("/");
      out.push({ file: relative(ROOT, file), line: at(n), source: t.slice(1, slash), flags: t.slice(slash + 1) });
    }
    // new RegExp(pattern, flags) and RegExp(pattern, flags): linted like a literal, or refused when the
    // pattern cannot be read statically (a pattern from file text would be a regex injection anyway).
    if ((ts.isNewExpression(n) || ts.isCallExpression(n)) && ts.isIdentifier(n.expression) && n.expression.text === "RegExp" && n.arguments?.length) {
      const [pat, fl] = n.arguments;
      const source = staticString(pat!, consts);
      const flags = fl ? staticString(fl, consts) : "";
      out.push({ file: relative(ROOT, file), line: at(n), source: source ?? "<not static>", flags: flags ?? "", constructed: true, unreadable: source === undefined });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("regex lint (issue #18)", () => {
  it("the checker finds the known super-linear shapes and passes linear ones", () => {
    for (const bad of ["(a+)+", "(\\d+,?)*x", "^(\\s*)(\\[\\[?)\\s*(a\\.?)?\\s*(\\]\\]?)?\\s*(#.*)?$", "\\s*=\\s*", "\\s+$", "^\\s*\\[\\s*[^\\],]*\\]", "(a|a?)+", "\\d+\\.?\\d*x"]) {
      assert.ok(lintRegex(bad).length > 0, `not flagged: /${bad}/`);
    }
    for (const good of ["^\\s*(#.*)?$", "^[A-Za-z_][A-Za-z0-9_-]*(?:\\s*\\.\\s*[A-Za-z0-9_-]+)*\\s*(#.*)?$", "[;\\s]+", "\"(?:[^\"\\\\\\n]|\\\\.)*\"", "^\\s*\\[\\[?([^\\],]*)\\]", "\\d+", "^\\d+(,\\d+)*,?$", "^[A-Za-z_][\\w]*(\\.[A-Za-z_]\\w*)*$"]) {
      assert.deepEqual(lintRegex(good), [], `flagged: /${good}/`);
    }
  });

  it("new RegExp(...) patterns are read statically, with their interpolations", () => {
    const all = files(SRC).flatMap(literals).filter((r) => r.constructed);
    assert.ok(all.length >= 10, `${all.length} constructed patterns found`);
    const kv = all.find((r) => r.file.endsWith("tomlRecover.ts") && r.source.startsWith("^(\\s*)("));
    assert.ok(kv && !kv.source.includes("${"), "the KV_LINE pattern has DOTTED inlined");
  });

  it("every regex literal and new RegExp(...) in server/src is linear (or allowed with a reason)", () => {
    const bad: string[] = [];
    for (const f of files(SRC)) {
      for (const r of literals(f)) {
        const key = `${r.file}:${r.source}`;
        if (r.unreadable) {
          bad.push(`${r.file}:${r.line} new RegExp(...) whose pattern is not a constant of its file`);
          continue;
        }
        const found = lintRegex(r.source, r.flags);
        if (found.length && !(key in ALLOWED)) bad.push(`${r.file}:${r.line} ${r.constructed ? "new RegExp " : ""}/${r.source}/${r.flags} (${[...new Set(found.map((x) => x.kind))].join(", ")})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("the allow-list names only patterns that still exist", () => {
    const all = new Set(files(SRC).flatMap((f) => literals(f).map((r) => `${r.file}:${r.source}`)));
    for (const k of Object.keys(ALLOWED)) assert.ok(all.has(k), `stale allow-list entry ${k}`);
  });
});

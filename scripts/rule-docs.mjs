#!/usr/bin/env node
/**
 * The header of each diagnostic page (docs/diagnostics/<code>.md: the title, the one-line summary, the old code
 * it replaced) and its row in docs/diagnostics/README.md, generated from the doc comment of the rule that
 * reports the code, so the two cannot drift (issue #34). A rule's doc comment leads with one paragraph per code
 * it documents, `<code>: <summary>`:
 *
 *   /**
 *    * transformers/unknown-key: A key the argument parser does not know (or not at the pinned transformers release).
 *    *
 *    * (how the rule decides, its sources: the rest of the comment)
 *    *\/
 *
 * test/diagnostic-docs.test.ts fails when a page or a row differs from what this writes, and when the summary
 * differs from the registry's (server/src/core/diagnostics/codes.ts). The old codes come from the one table of
 * renames, server/src/core/diagnostics/renamed-codes.json.
 *
 *   node scripts/rule-docs.mjs           rewrite the headers and index rows that differ
 *   node scripts/rule-docs.mjs --check   list them, exit 1 if any
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FRAMEWORKS = join(ROOT, "server", "src", "core", "frameworks");
const DOCS = join(ROOT, "docs", "diagnostics");
const RENAMED = JSON.parse(readFileSync(join(ROOT, "server", "src", "core", "diagnostics", "renamed-codes.json"), "utf8"));

/**
 * The registry's codes and their editor tags, read from codes.ts as text (this script runs without a TypeScript
 * loader): each entry is one line `"<code>": { summary: "…"[, tags: U|D] },`.
 */
function registry() {
  const text = readFileSync(join(ROOT, "server", "src", "core", "diagnostics", "codes.ts"), "utf8");
  const out = new Map();
  for (const m of text.matchAll(/^\s*"([^"]+)": \{ summary: "(?:[^"\\]|\\.)*"(?:, tags: ([UD]))? \},?$/gm)) out.set(m[1], m[2] === "U" ? "Unnecessary" : m[2] === "D" ? "Deprecated" : undefined);
  return out;
}
const TAG_WORDS = { Unnecessary: "shown faded", Deprecated: "shown struck through" };

/** The old codes of each new code. */
function aliasesOf(code) {
  return Object.keys(RENAMED).filter((o) => RENAMED[o] === code);
}

/** The rule files: server/src/core/frameworks/<id>/rules/*.ts, sorted. */
function ruleFiles() {
  return readdirSync(FRAMEWORKS)
    .filter((fw) => statSync(join(FRAMEWORKS, fw)).isDirectory())
    .sort()
    .flatMap((fw) => {
      const dir = join(FRAMEWORKS, fw, "rules");
      try {
        return readdirSync(dir)
          .filter((n) => n.endsWith(".ts") && n !== "index.ts")
          .sort()
          .map((n) => join(dir, n));
      } catch {
        return [];
      }
    });
}

/** The paragraphs of a file's first doc comment, each as one line of text. */
export function docParagraphs(text) {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!m) return [];
  const lines = m[1].split("\n").map((l) => l.replace(/^\s*\*(?: |$)/, "").trimEnd());
  const paras = [];
  let cur = [];
  for (const l of lines) {
    if (l.trim() === "") {
      if (cur.length) paras.push(cur.join(" ").trim());
      cur = [];
    } else cur.push(l.trim());
  }
  if (cur.length) paras.push(cur.join(" ").trim());
  return paras;
}

/** Every `<code>: <summary>` paragraph (a registered code) of the rules' doc comments: code → { summary, file, tag }. */
export function ruleSummaries() {
  const codes = registry();
  const out = new Map();
  for (const f of ruleFiles()) {
    for (const p of docParagraphs(readFileSync(f, "utf8"))) {
      const m = /^([a-z0-9][a-z0-9.-]*(?:\/[a-z0-9][a-z0-9.-]*)?): (.+)$/.exec(p);
      if (!m || !codes.has(m[1])) continue;
      if (out.has(m[1])) throw new Error(`${m[1]} is documented twice: ${out.get(m[1]).file} and ${relative(ROOT, f)}`);
      out.set(m[1], { summary: m[2], file: relative(ROOT, f).split("\\").join("/"), tag: codes.get(m[1]) });
    }
  }
  return out;
}

/** The header a page must start with (up to its first `## ` section). */
export function pageHeader(code, { summary, file, tag }) {
  const aliases = aliasesOf(code);
  const old = aliases.length
    ? `\n\nFormerly ${aliases.map((a) => `\`${a}\``).join(", ")}: the old code still works in \`# precision-lens: disable=\` comments, and the CLI's JSON lists it under \`aliases\`.`
    : "";
  const tagLine = tag ? `\n\nEditor tag: \`${tag}\` (${TAG_WORDS[tag]}).` : "";
  return `# \`${code}\`\n\n<!-- Header generated from the doc comment of ${file} by scripts/rule-docs.mjs -->\n\n${summary}${old}${tagLine}\n\n`;
}

/** The index row's first two cells for a code. */
function indexCells(code, summary) {
  const aliases = aliasesOf(code);
  return `| [\`${code}\`](${code}.md)${aliases.length ? ` (was ${aliases.map((a) => `\`${a.slice(a.indexOf("/") + 1)}\``).join(", ")})` : ""} | ${summary} |`;
}

/** Every file the generator owns, as it must read: path → expected text (only files that exist and differ matter). */
export function generatedDocs() {
  const out = new Map();
  const summaries = ruleSummaries();
  for (const [code, info] of summaries) {
    const path = join(DOCS, `${code}.md`);
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      throw new Error(`${code} (${info.file}) has no page ${relative(ROOT, path)}`);
    }
    const body = text.indexOf("\n## ");
    out.set(path, pageHeader(code, info) + (body >= 0 ? text.slice(body + 1) : ""));
  }
  const indexPath = join(DOCS, "README.md");
  const index = readFileSync(indexPath, "utf8")
    .split("\n")
    .map((line) => {
      const m = /^\| \[`([^`]+)`\]\(\1\.md\)[^|]*\| .*? \| ([^|]*) \|$/.exec(line);
      const info = m && summaries.get(m[1]);
      return info ? `${indexCells(m[1], info.summary)} ${m[2]} |` : line;
    })
    .join("\n");
  out.set(indexPath, index);
  return out;
}

function main(argv) {
  const check = argv.includes("--check");
  let n = 0;
  for (const [path, want] of generatedDocs()) {
    if (readFileSync(path, "utf8") === want) continue;
    n++;
    if (check) process.stdout.write(`${relative(ROOT, path)} differs from its rule's doc comment\n`);
    else {
      writeFileSync(path, want);
      process.stdout.write(`${relative(ROOT, path)} written\n`);
    }
  }
  if (check && n) process.stdout.write(`run: node scripts/rule-docs.mjs\n`);
  return check && n ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

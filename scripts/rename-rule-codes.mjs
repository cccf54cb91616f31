#!/usr/bin/env node
/**
 * Rewrites the old opaque rule codes (`transformers/HF6`) to their readable names (`transformers/unknown-key`) in
 * the files named, from the one table of renames (server/src/core/diagnostics/renamed-codes.json, issue #34).
 * For a branch whose tests or docs were written against the old codes:
 *
 *   node scripts/rename-rule-codes.mjs test/my-new.test.ts docs/some-page.md   rewrite these files
 *   node scripts/rename-rule-codes.mjs test e2e docs                             every text file under these folders
 *   node scripts/rename-rule-codes.mjs --check test                              list old codes, exit 1 if any
 *   node scripts/rename-rule-codes.mjs --bare docs/transformers.md               also bare short codes (`HF6` → `unknown-key`)
 *
 * A full code is `<framework>/<OLD>` (a page path `transformers/HF6.md` is rewritten with it; so is
 * `transformers\/HF6` in a regular expression literal). `--bare` also
 * rewrites a short code standing alone (`HF6`, `AC1`) to the new short name: meant for prose, not for code. A line
 * that contains `rename-rule-codes: keep` is left alone (a test that names an old code on purpose, as an alias), and
 * so is a diagnostic page's "Formerly `…`" line (scripts/rule-docs.mjs writes it to name the old code).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const RENAMED = JSON.parse(readFileSync(join(ROOT, "server", "src", "core", "diagnostics", "renamed-codes.json"), "utf8"));

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const shortOf = (c) => c.slice(c.indexOf("/") + 1);
// Longest first, so that `HF1` never eats the start of `HF10` (the lookahead guards it too).
const OLD = Object.keys(RENAMED).sort((a, b) => b.length - a.length);
// `transformers/HF6`, or `transformers\/HF6` inside a regular expression literal.
const FWS = [...new Set(OLD.map((o) => o.slice(0, o.indexOf("/"))))];
const SHORTS = OLD.map(shortOf);
const FULL = new RegExp(`(?<![A-Za-z0-9_-])(${FWS.map(esc).join("|")})(\\\\?/)(${SHORTS.map(esc).join("|")})(?![A-Za-z0-9_])`, "g");
const SHORT_TO_NEW = Object.fromEntries(OLD.map((o) => [shortOf(o), shortOf(RENAMED[o])]));
const BARE = new RegExp(`(?<![A-Za-z0-9_/-])(${Object.keys(SHORT_TO_NEW).sort((a, b) => b.length - a.length).map(esc).join("|")})(?![A-Za-z0-9_])`, "g");
const KEEP = "rename-rule-codes: keep";
const TEXT = /\.(?:[cm]?[jt]s|json|md|ya?ml|toml|py|sh|txt|cjs|mjs|lua)$/;

/** The text with every old code rewritten (lines with the keep marker untouched), and how many were. */
export function renameCodes(text, { bare = false } = {}) {
  let n = 0;
  const out = text
    .split("\n")
    .map((line) => {
      if (line.includes(KEEP) || line.startsWith("Formerly `")) return line;
      let l = line.replace(FULL, (c, fw, slash, old) => {
        const now = RENAMED[`${fw}/${old}`];
        if (!now) return c;
        n++;
        return fw + slash + shortOf(now);
      });
      if (bare) l = l.replace(BARE, (c) => (n++, SHORT_TO_NEW[c]));
      return l;
    })
    .join("\n");
  return { text: out, count: n };
}

function files(p) {
  const st = statSync(p);
  if (!st.isDirectory()) return [p];
  return readdirSync(p)
    .filter((n) => n !== "node_modules" && !n.startsWith("."))
    .flatMap((n) => {
      const q = join(p, n);
      return statSync(q).isDirectory() ? files(q) : TEXT.test(n) ? [q] : [];
    });
}

function main(argv) {
  const check = argv.includes("--check");
  const bare = argv.includes("--bare");
  const paths = argv.filter((a) => !a.startsWith("--"));
  if (!paths.length) {
    process.stderr.write("usage: node scripts/rename-rule-codes.mjs [--check] [--bare] FILE|DIR...\n");
    return 2;
  }
  let total = 0;
  for (const f of paths.flatMap(files)) {
    const text = readFileSync(f, "utf8");
    const r = renameCodes(text, { bare });
    if (!r.count) continue;
    total += r.count;
    if (check) process.stdout.write(`${f}: ${r.count} old code${r.count === 1 ? "" : "s"}\n`);
    else {
      writeFileSync(f, r.text);
      process.stdout.write(`${f}: ${r.count} rewritten\n`);
    }
  }
  return check && total ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

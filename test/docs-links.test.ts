/**
 * Every relative link in README.md and docs/**\/*.md resolves: the file (or folder) exists, and a `#anchor`
 * names a heading of the target (GitHub's slugs). The README stays a short first read (issue #20): at most
 * 15 KB, the reference lives in docs/.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { OPEN_REPORT_COMMAND } from "../server/src/core/features/index";

const ROOT = resolve(__dirname, "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? markdownFiles(p) : n.endsWith(".md") ? [p] : [];
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped (except - and _), spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file: its headings outside code fences, duplicates numbered like GitHub does. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Relative link targets of a Markdown file (inline links and images), outside code fences and code spans. */
function links(file: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let fence = false;
  readFileSync(file, "utf8").split("\n").forEach((line, i) => {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) return;
    const text = line.replace(/`[^`]*`/g, "``");
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const t = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(t)) continue; // https:, mailto:, vscode:
      out.push({ target: t, line: i + 1 });
    }
  });
  return out;
}

function broken(file: string): string[] {
  const out: string[] = [];
  for (const { target, line } of links(file)) {
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const dest = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(ROOT, file)}:${line}: ${target}`;
    if (!existsSync(dest)) {
      out.push(`${where} (no such file)`);
      continue;
    }
    if (anchor && dest.endsWith(".md") && !anchors(dest).has(anchor.toLowerCase())) out.push(`${where} (no heading #${anchor})`);
  }
  return out;
}

describe("documentation links", () => {
  const files = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];

  it("every relative link in README.md and docs/ resolves, anchors included", () => {
    assert.ok(files.length > 20, `${files.length} Markdown files`);
    assert.deepEqual(files.flatMap(broken), []);
  });

  it("anchors are read from headings and slugged as GitHub does", () => {
    const tmp = join(ROOT, "docs", "limits.md");
    assert.ok(anchors(tmp).size > 0);
    assert.equal(slug("The `precision-lens` CLI: check & explain"), "the-precision-lens-cli-check--explain");
  });

  it("the README is a first read: at most 15 KB, and it links every docs page beside it", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    assert.ok(Buffer.byteLength(readme) <= 15_000, `README.md is ${Buffer.byteLength(readme)} bytes`);
    const pages = readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md"));
    const linked = new Set(links(join(ROOT, "README.md")).map((l) => l.target.split("#")[0]));
    assert.deepEqual(pages.filter((p) => !linked.has(`docs/${p}`)), []);
  });
});

/** Lines of a Markdown file outside code fences, with their 1-based numbers. */
function prose(file: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fence = false;
  readFileSync(file, "utf8").split("\n").forEach((text, i) => {
    if (/^\s*```/.test(text)) fence = !fence;
    else if (!fence) out.push({ text, line: i + 1 });
  });
  return out;
}

const TRACKED = spawnSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\n").filter(Boolean);

/** The packages of an `apt-get install` command in a line ("-y", "-qq", ... dropped), or null. */
function aptPackages(line: string): string[] | null {
  const m = /apt-get install((?:\s+[\w.+-]+)+)/.exec(line);
  return m ? m[1]!.trim().split(/\s+/).filter((w) => !w.startsWith("-")) : null;
}

describe("what the documentation says is true (issue #20 audit)", () => {
  const files = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];

  it("no table row stands outside its table (the README's 'Python configs' row was cut off by a paragraph)", () => {
    const stray: string[] = [];
    for (const f of files) {
      const lines = prose(f);
      lines.forEach(({ text, line }, i) => {
        if (!/^\|.*\|\s*$/.test(text)) return;
        const prev = lines[i - 1]?.text ?? "";
        const next = lines[i + 1]?.text ?? "";
        if (!prev.startsWith("|") && !/^\|\s*:?-+/.test(next)) stray.push(`${relative(ROOT, f)}:${line}: ${text.slice(0, 60)}`);
      });
    }
    assert.deepEqual(stray, []);
  });

  it("names no file a user does not have: no § reference, and every NAME.md mentioned is in the repository", () => {
    const names = new Set(TRACKED.map((p) => p.slice(p.lastIndexOf("/") + 1)));
    const bad: string[] = [];
    for (const f of files) {
      for (const { text, line } of prose(f)) {
        const where = `${relative(ROOT, f)}:${line}`;
        if (text.includes("§")) bad.push(`${where}: § in "${text.trim().slice(0, 70)}"`);
        // A bare file name (not a path, not a link target): e.g. "(torchtitan.md §4.3)", "e2e-vscode.md".
        for (const m of text.replace(/\]\([^)]*\)/g, "]").matchAll(/(?<![\w./-])([\w-]+\.md)\b/g)) if (!names.has(m[1]!)) bad.push(`${where}: ${m[1]}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("every apt-get line that sets up the real-editor suite installs what .ci/run installs for it", () => {
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8").replace(/\\\n\s*/g, " ");
    const need = aptPackages(ci.split("\n").find((l) => aptPackages(l)?.includes("chromium"))!)!;
    assert.deepEqual([...need].sort(), ["chromium", "fonts-dejavu-core", "libkrb5-dev", "neovim", "pkg-config", "ripgrep"]);
    const e2e = need.filter((p) => p !== "neovim"); // neovim is test/neovim.test.ts's, not the editor suite's
    const short: string[] = [];
    for (const f of [...files, join(ROOT, "e2e", "harness.mjs"), join(ROOT, "e2e", "setup.sh")]) {
      readFileSync(f, "utf8").split("\n").forEach((text, i) => {
        const pkgs = aptPackages(text);
        if (!pkgs?.includes("chromium")) return;
        const missing = e2e.filter((p) => !pkgs.includes(p));
        if (missing.length) short.push(`${relative(ROOT, f)}:${i + 1}: lacks ${missing.join(", ")}`);
      });
    }
    assert.deepEqual(short, []);
  });

  it("the code lens is said to open the visual report, as it does (the README said it opened the Markdown report)", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { contributes: { commands: { command: string; title: string }[] } };
    const open = manifest.contributes.commands.find((c) => c.command === OPEN_REPORT_COMMAND)!;
    assert.equal(open.title, "Open Precision Report");
    const wrong: string[] = [];
    for (const f of files) {
      // Paragraphs and list items joined, then cut into sentences.
      const text = prose(f).map((l) => l.text).join("\n").replace(/\n(?![\n\-*|#]|\d+\.)\s*/g, " ");
      for (const sentence of text.split(/(?<=\.)\s+|\n/)) {
        if (!/code lens/i.test(sentence) || !/\bopen/i.test(sentence)) continue;
        if (!/visual report|webview|Open Precision Report/.test(sentence)) wrong.push(`${relative(ROOT, f)}: ${sentence.trim().slice(0, 120)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("ARCHITECTURE.md and development.md name files that exist (after the rooms of core/ moved them)", () => {
    const missing: string[] = [];
    for (const f of ["ARCHITECTURE.md", "development.md"].map((n) => join(ROOT, "docs", n))) {
      for (const { text, line } of prose(f)) {
        for (const m of text.matchAll(/`([\w./-]+\.(?:ts|mjs|cjs|lua|sh|json|md))`/g)) {
          const p = m[1]!;
          if (p.startsWith("dist/") || p.startsWith("../")) continue; // build outputs, files beside the checkout
          if (!TRACKED.some((t) => t === p || t.endsWith(`/${p}`))) missing.push(`${relative(ROOT, f)}:${line}: ${p}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it("the corpus suites' skip message points at a page that says what ../shared/corpus is", () => {
    const dev = join(ROOT, "docs", "development.md");
    assert.ok(anchors(dev).has("what-the-tests-need"));
    assert.match(readFileSync(dev, "utf8"), /\*\*`\.\.\/shared\/corpus`\*\* \(optional\): a folder \*beside\* the checkout/);
  });
});

/**
 * Every relative link in README.md and docs/**\/*.md resolves: the file (or folder) exists, and a `#anchor`
 * names a heading of the target (GitHub's slugs). The README stays a short first read (issue #20): at most
 * 15 KB, the reference lives in docs/.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

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

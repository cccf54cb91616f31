/** A read-only, path-based view of a YAML/JSON config (the value access every YAML/JSON analyser reads through). */
import { findEntry, keyOf, type ConfigDocument, type ConfigEntry } from "../../model/document";
import type { Range } from "../../model/types";

/**
 * The first character of the text that is not whitespace and not inside a `#` comment line (linear scan:
 * no regular expression, so no backtracking on hostile input). Undefined for an empty or comment-only text.
 */
export function firstContentChar(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "#") {
      const nl = text.indexOf("\n", i);
      if (nl < 0) return undefined;
      i = nl + 1;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\n" || c === "\uFEFF") i++;
    else return c;
  }
  return undefined;
}

/** A read-only view of a document under a root path (Lightning configs may nest the trainer under `fit:`). */
export class View {
  private readonly sectionKeys: Set<string>;
  private readonly entryIndex = new Map<string, ConfigEntry>();
  private readonly prefixes = new Set<string>();
  constructor(
    readonly doc: ConfigDocument,
    readonly root: readonly string[] = [],
  ) {
    this.sectionKeys = new Set(doc.sections.map((s) => keyOf(s.path)));
    for (const e of doc.entries) {
      this.entryIndex.set(keyOf(e.path), e);
      // Parents of every entry count as present (a salvaged model of a broken file may lack its sections).
      for (let i = 1; i < e.path.length; i++) this.prefixes.add(keyOf(e.path.slice(0, i)));
    }
  }
  at(...path: string[]): View {
    return new View(this.doc, [...this.root, ...path]);
  }
  entry(...path: string[]): ConfigEntry | undefined {
    return this.entryIndex.get(keyOf([...this.root, ...path]));
  }
  /** A section (block mapping) at the path. */
  isSection(...path: string[]): boolean {
    return this.sectionKeys.has(keyOf([...this.root, ...path]));
  }
  has(...path: string[]): boolean {
    return this.entry(...path) !== undefined || this.isSection(...path) || this.prefixes.has(keyOf([...this.root, ...path]));
  }
  /** Range to underline for the key at `path` (entry key or section header). */
  keyRange(...path: string[]): Range | undefined {
    const e = this.entry(...path);
    if (e) return e.keyRange;
    const k = keyOf([...this.root, ...path]);
    return this.doc.sections.find((s) => keyOf(s.path) === k)?.headerRange;
  }
  sectionRange(...path: string[]): Range | undefined {
    const k = keyOf([...this.root, ...path]);
    return this.doc.sections.find((s) => keyOf(s.path) === k)?.range ?? this.entry(...path)?.range;
  }
  str(...path: string[]): string | undefined {
    const e = this.entry(...path);
    return e?.value.kind === "string" ? (e.value.value as string) : undefined;
  }
  bool(...path: string[]): boolean | undefined {
    const e = this.entry(...path);
    return e?.value.kind === "boolean" ? (e.value.value as boolean) : undefined;
  }
  num(...path: string[]): number | undefined {
    const e = this.entry(...path);
    if (!e) return undefined;
    if (e.value.kind === "integer" || e.value.kind === "float") return e.value.value as number;
    if (e.value.kind === "string" && /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/.test(e.value.value as string)) return Number(e.value.value);
    return undefined;
  }
  int(...path: string[]): number | undefined {
    const n = this.num(...path);
    return n !== undefined && Number.isInteger(n) ? n : undefined;
  }
  /** The value as a plain scalar (string/number/boolean/null); undefined when absent or a container. */
  scalar(...path: string[]): string | number | boolean | null | undefined {
    const e = this.entry(...path);
    if (!e || e.value.kind === "array" || e.value.kind === "table") return undefined;
    return e.value.value as string | number | boolean | null;
  }
  /** Immediate child keys at the path, from entries and sections, in source order. */
  childKeys(...path: string[]): string[] {
    const p = [...this.root, ...path];
    const out: string[] = [];
    const add = (q: string[]) => {
      if (q.length > p.length && p.every((x, i) => q[i] === x)) {
        const k = q[p.length]!;
        if (!out.includes(k)) out.push(k);
      }
    };
    for (const e of this.doc.entries) add(e.path);
    for (const s of this.doc.sections) add(s.path);
    return out;
  }
  /** Entries whose path is under the given prefix (any depth), relative to the root. */
  entriesUnder(...path: string[]): ConfigEntry[] {
    const p = [...this.root, ...path];
    return this.doc.entries.filter((e) => e.path.length > p.length && p.every((x, i) => e.path[i] === x));
  }
}

export function firstEntry(doc: ConfigDocument, ...paths: string[][]): ConfigEntry | undefined {
  for (const p of paths) {
    const e = findEntry(doc, ...p);
    if (e) return e;
  }
  return undefined;
}

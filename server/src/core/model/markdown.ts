/**
 * Text from a config (a value, a key, a message quoting them) placed in Markdown that an editor renders (issue
 * #33): link, image and autolink syntax and raw HTML are neutralised, so a value like `[x](https://…)` or
 * `<img src=…>` shows as text; everything else (our own emphasis, code spans, tables) is left as written.
 */
export function inertMarkdown(s: string): string {
  return s.replace(/\]\(/g, "]\\(").replace(/\]\[/g, "]\\[").replace(/!\[/g, "!\\[").replace(/<(?=[A-Za-z/!?])/g, "&lt;");
}

/** A config value as an inline code span that no backtick inside it can close (CommonMark: a longer fence). */
export function codeSpan(s: string): string {
  let longest = 0;
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  if (!longest) return `\`${s}\``;
  const fence = "`".repeat(longest + 1);
  return `${fence} ${s} ${fence}`;
}

/**
 * Text of ours that holds config values (a layout name, a table cell, a note, an assumption, a diagnostic's
 * message), made safe for one Markdown line (issue #33): the one helper every hover and the Markdown report use.
 * Code spans are found as CommonMark finds them (a backtick run closed by the next run of the same length) and
 * left as code; everywhere else a backslash before punctuation, a lone `*`, a `_` at a word boundary, `<`, `![`, `](` and `][` are
 * escaped, so a value like `*x*`, `[a](http://e)` or `<img src=x>` shows as written. Line breaks become spaces
 * (a value cannot start a heading, a list or a new table row); `cell` escapes `|` (GFM: inside code spans too).
 * Our own `**bold**` (a run of exactly two) is kept.
 */
export function mdProse(s: string, opts: { cell?: boolean } = {}): string {
  const text = s.replace(/\r\n?|\n/g, " ");
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === "`") {
      let n = 0;
      while (text[i + n] === "`") n++;
      const run = "`".repeat(n);
      // The closing run: the next run of exactly n backticks.
      let j = i + n;
      let close = -1;
      while (j < text.length) {
        const k = text.indexOf(run, j);
        if (k < 0) break;
        let m = 0;
        while (text[k + m] === "`") m++;
        if (m === n) {
          close = k;
          break;
        }
        j = k + m;
      }
      if (close >= 0) {
        const span = text.slice(i, close + n);
        out += opts.cell ? span.replace(/\|/g, "\\|") : span;
        i = close + n;
      } else {
        out += "\\`".repeat(n);
        i += n;
      }
      continue;
    }
    const c = text[i]!;
    const prev = text[i - 1] ?? " ";
    const next = text[i + 1] ?? " ";
    // A backslash escapes only ASCII punctuation (CommonMark): doubled there (and at the end, before our own
    // text), so it never escapes our escapes or our backticks; `\x0a` stays as written.
    if (c === "\\") out += /[!-/:-@[-`{-~]/.test(text[i + 1] ?? "") || i === text.length - 1 ? "\\\\" : "\\";
    else if (c === "*") {
      let n = 0;
      while (text[i + n] === "*") n++;
      out += n === 2 ? "**" : "\\*".repeat(n);
      i += n;
      continue;
    } else if (c === "_") out += /[\p{L}\p{N}]/u.test(prev) && /[\p{L}\p{N}]/u.test(next) ? "_" : "\\_";
    else if (c === "<") out += "&lt;";
    else if (c === "!" && next === "[") out += "!\\";
    else if (c === "]" && (next === "(" || next === "[")) out += "]\\";
    else if (c === "|" && opts.cell) out += "\\|";
    else out += c;
    i++;
  }
  return out;
}

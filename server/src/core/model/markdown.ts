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

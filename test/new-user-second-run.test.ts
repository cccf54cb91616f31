/**
 * Issue #34, the second run through the steps as a new user: what that run still found, each pinned by a
 * test that fails without its fix.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyHoverMarkdown } from "../server/src/core/frameworks/torchtitan/schema/hover";
import { converterNamesAt } from "../server/src/core/frameworks/torchtitan/schema/index";

describe("words (issue #34, second run)", () => {
  it("the model.converters hover lists each converter on its own line: no '8.9+.;'", () => {
    for (const when of ["v0.1.0", "v0.2.0", "v0.2.2"] as const) {
      const md = keyHoverMarkdown(when, "model.converters")!;
      assert.ok(md, when);
      assert.doesNotMatch(md, /\.;/, `${when}: a full stop before a semicolon`);
      const names = converterNamesAt(when);
      assert.ok(names.length >= 2, `${when}: ${names}`);
      for (const n of names) assert.match(md, new RegExp(`^- \`"${n.replace(/\./g, "\\.")}"\` — [^\\n]*\\.$`, "m"), `${when}: ${n} on a line of its own`);
      assert.match(md, new RegExp(`Converters in ${when}:\\n\\n- `));
    }
  });
});

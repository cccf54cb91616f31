/** The one parser of `# precision-lens:` comments, shared by settings directives and suppressions. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDirectives } from "../server/src/core/diagnostics/directives";
import type { ConfigComment } from "../server/src/core/model/document";

const comment = (text: string, line = 0): ConfigComment => ({ line, text, range: { start: { line, character: 0 }, end: { line, character: text.length + 2 } } });
const kv = (text: string) => parseDirectives([comment(text)]).map((d) => [d.key, d.value]);

describe("precision-lens directives", () => {
  it("reads pairs with or without spaces around '=', separated by spaces or ';'", () => {
    assert.deepEqual(kv("precision-lens: world-size=16 torchtitan-version=v0.2.1"), [["world-size", "16"], ["torchtitan-version", "v0.2.1"]]);
    assert.deepEqual(kv("precision-lens:world-size = 4; framework=accelerate"), [["world-size", "4"], ["framework", "accelerate"]]);
  });

  it("bare flags, and list values that continue over spaces and commas", () => {
    assert.deepEqual(kv("precision-lens: off"), [["off", ""]]);
    assert.deepEqual(kv("precision-lens: disable=no-effect, fp32-param-dtype pp-bubble world-size=8"), [["disable", "no-effect,,fp32-param-dtype,pp-bubble"], ["world-size", "8"]]);
  });

  it("ignores other comments and parses each comment list once", () => {
    const cs = [comment("just a note"), comment("Precision-Lens: disable-file=all", 3)];
    const first = parseDirectives(cs);
    assert.deepEqual(first.map((d) => [d.key, d.value, d.line]), [["disable-file", "all", 3]]);
    assert.equal(parseDirectives(cs), first, "memoised per document");
  });
});

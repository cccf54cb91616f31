/** The publish policy of the language server (server/src/latency.ts): fast documents at once, slow ones throttled by cost while edits come faster than analyses. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { COST_WINDOW, CostWindow, diagnosticsDelay, INSTANT_ANALYSIS_MS, MAX_DEBOUNCE_MS } from "../server/src/latency";

describe("diagnostics publish delay", () => {
  it("a document never analysed is published at once", () => {
    assert.equal(diagnosticsDelay(undefined), 0);
    assert.equal(diagnosticsDelay(undefined, 0), 0);
  });
  it("a document whose analysis costs under 20 ms is published at once, even right after the last one", () => {
    assert.equal(INSTANT_ANALYSIS_MS, 20);
    for (const cost of [0, 0.4, 1.2, 19.9]) assert.equal(diagnosticsDelay(cost, 0, true), 0, String(cost));
  });
  it("a slow document edited after a pause is analysed at once: the delay does not add to the cost", () => {
    assert.equal(diagnosticsDelay(300, undefined, true), 0);
    assert.equal(diagnosticsDelay(300, 300, true), 0);
    assert.equal(diagnosticsDelay(40, 5_000, true), 0);
  });
  it("a slow document's only pending edit is analysed at once, even right after the last analysis (issue #36: no added wait)", () => {
    assert.equal(diagnosticsDelay(300, 0), 0);
    assert.equal(diagnosticsDelay(300, 0, false), 0);
    assert.equal(diagnosticsDelay(5_000, 1, false), 0);
    assert.equal(diagnosticsDelay(40, 0, false), 0);
  });
  it("while edits come faster than analyses (an earlier edit still waits), a slow document waits until its cost has passed since its last analysis ended", () => {
    assert.equal(diagnosticsDelay(40, 0, true), 40);
    assert.equal(diagnosticsDelay(300, 100, true), 200);
    assert.equal(diagnosticsDelay(300, 299.5, true), 1);
    assert.equal(diagnosticsDelay(5_000, 0, true), MAX_DEBOUNCE_MS);
  });
  it("a nonsense cost or time never blocks publishing for long", () => {
    assert.equal(diagnosticsDelay(Number.NaN, 0, true), 0);
    assert.equal(diagnosticsDelay(-5, 0, true), 0);
    assert.equal(diagnosticsDelay(100, Number.NaN, true), 100);
    assert.equal(diagnosticsDelay(100, -1, true), 100);
  });
});

describe("cost window", () => {
  it("the cost is the minimum of the last COST_WINDOW analyses (a GC pause is not the document's cost)", () => {
    const w = new CostWindow();
    assert.equal(w.cost, undefined);
    assert.equal(COST_WINDOW, 3);
    w.add(30, 1);
    w.add(400, 2);
    assert.equal(w.cost, 30);
    assert.equal(w.endedAt, 2);
    w.add(50, 3);
    w.add(60, 4);
    assert.equal(w.cost, 50, "the 30 ms analysis fell out of the window");
  });
});

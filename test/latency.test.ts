/** The publish policy of the language server (server/src/latency.ts): fast documents at once, slow ones debounced by cost. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnosticsDelay, INSTANT_ANALYSIS_MS, MAX_DEBOUNCE_MS, MIN_DEBOUNCE_MS } from "../server/src/latency";

describe("diagnostics publish delay", () => {
  it("a document never analysed is published at once", () => {
    assert.equal(diagnosticsDelay(undefined), 0);
  });
  it("a document whose last analysis took under 20 ms is published at once", () => {
    assert.equal(INSTANT_ANALYSIS_MS, 20);
    for (const cost of [0, 0.4, 1.2, 19.9]) assert.equal(diagnosticsDelay(cost), 0, String(cost));
  });
  it("a slow document waits in proportion to its cost, within [50, 1000] ms", () => {
    assert.equal(diagnosticsDelay(20), MIN_DEBOUNCE_MS);
    assert.equal(diagnosticsDelay(40), 80);
    assert.equal(diagnosticsDelay(300), 600);
    assert.ok(diagnosticsDelay(300) > diagnosticsDelay(100));
    assert.equal(diagnosticsDelay(2000), MAX_DEBOUNCE_MS);
  });
  it("a nonsense cost never blocks publishing", () => {
    assert.equal(diagnosticsDelay(Number.NaN), 0);
    assert.equal(diagnosticsDelay(-5), 0);
  });
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LineClassifier, RepeatLimiter } from "../src/serverlog";

test("server log lines keep the level the server logged them at", () => {
  const lines = new LineClassifier();
  assert.deepEqual(lines.classify("arbor-ls WARNING inference.router: backend fake failed: refused"),
    { level: "warn", text: "inference.router: backend fake failed: refused" });
  assert.equal(lines.classify("arbor-ls INFO lsp_server.server: ready").level, "info");
  assert.equal(lines.classify("arbor-ls DEBUG x: y").level, "debug");
  assert.equal(lines.classify("arbor-ls CRITICAL x: y").level, "error");
  assert.equal(lines.classify("some library print").level, "info");
  assert.equal(lines.classify("Traceback (most recent call last):").level, "error");
  assert.equal(lines.classify('  File "x.py", line 3').level, "error");
  assert.equal(lines.classify("arbor-ls INFO back to normal").level, "info");
});

test("a repeated warning is written once per window, then with the count left out", () => {
  let now = 0;
  const limiter = new RepeatLimiter(10_000, () => now);
  const warn = (text: string) => limiter.admit({ level: "warn", text });
  assert.equal(warn("backend fake failed after 12 ms"), "backend fake failed after 12 ms");
  now = 1_000;
  assert.equal(warn("backend fake failed after 15 ms"), undefined, "same text but the digits");
  now = 2_000;
  assert.equal(warn("backend fake failed after 9 ms"), undefined);
  assert.equal(warn("another warning"), "another warning");
  assert.equal(limiter.admit({ level: "info", text: "info is never limited" }), "info is never limited");
  assert.equal(limiter.admit({ level: "info", text: "info is never limited" }), "info is never limited");
  now = 10_500;
  assert.equal(warn("backend fake failed after 20 ms"), "backend fake failed after 20 ms (2 more like it in the last 11 s)");
  now = 11_000;
  assert.equal(limiter.admit({ level: "error", text: "backend fake failed after 20 ms" }), "backend fake failed after 20 ms",
    "an error is not a warning");
});

test("the limiter forgets the oldest message past its size", () => {
  let now = 0;
  const limiter = new RepeatLimiter(10_000, () => now, 2);
  limiter.admit({ level: "warn", text: "a" });
  limiter.admit({ level: "warn", text: "b" });
  limiter.admit({ level: "warn", text: "c" });
  now = 1;
  assert.equal(limiter.admit({ level: "warn", text: "a" }), "a", "forgotten, so written again");
  assert.equal(limiter.admit({ level: "warn", text: "c" }), undefined);
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { isStatusParams } from "../src/protocol";
import { statusView } from "../src/status";

test("idle, working and error states read differently", () => {
  const idle = statusView("running", true, { state: "idle", backend: "local:m", breaker: "closed" });
  const working = statusView("running", true, { state: "working", backend: "local:m", breaker: "closed" });
  const down = statusView("running", true, { state: "error", backend: "local:m", breaker: "open", message: "connection refused" });
  assert.match(idle.text, /^\$\(sparkle\)/);
  assert.match(working.text, /sync~spin/);
  assert.equal(down.text, "$(warning) arbor: backend down (breaker open)");
  assert.equal(down.background, "statusBarItem.errorBackground");
  assert.match(down.tooltip, /connection refused/);
  assert.match(down.tooltip, /backend: local:m/);
  assert.equal(new Set([idle.text, working.text, down.text]).size, 3);
});

test("a half-open breaker warns instead of erroring", () => {
  const view = statusView("running", true, { state: "error", breaker: "half_open" });
  assert.equal(view.background, "statusBarItem.warningBackground");
  assert.match(view.text, /half_open/);
});

test("no status yet counts as idle", () => {
  assert.match(statusView("running", true, undefined).text, /sparkle/);
});

test("disabled completions and an unusable server are shown, with a click that fixes them", () => {
  assert.equal(statusView("running", false, { state: "idle" }).command, "arbor.toggleCompletions");
  assert.match(statusView("running", false, undefined).text, /circle-slash/);
  const missing = statusView("notFound", true, undefined);
  assert.match(missing.text, /not found/);
  assert.equal(missing.command, "arbor.restartServer");
  assert.equal(statusView("stopped", true, undefined).command, "arbor.restartServer");
  assert.match(statusView("starting", true, undefined).text, /loading~spin/);
});

test("a loading model spins and says so, with its message in the tooltip", () => {
  const view = statusView("running", true, { state: "loading", backend: "embedded", message: "loading qwen2.5-coder-0.5b" });
  assert.equal(view.text, "$(sync~spin) arbor: loading model");
  assert.match(view.tooltip, /loading qwen2\.5-coder-0\.5b/);
  assert.equal(view.background, undefined);
  assert.notEqual(view.text, statusView("running", true, { state: "working" }).text);
});

test("status payloads with a known state are accepted, loading included", () => {
  for (const state of ["idle", "working", "loading", "error"]) {
    assert.ok(isStatusParams({ state }), state);
  }
  assert.equal(isStatusParams({ state: "sleeping" }), false);
  assert.equal(isStatusParams({}), false);
  assert.equal(isStatusParams(null), false);
});

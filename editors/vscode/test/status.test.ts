import { strict as assert } from "node:assert";
import { test } from "node:test";
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

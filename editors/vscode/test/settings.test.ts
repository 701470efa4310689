import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { contributedKeys, explicitValue, isServerKey, serverSettings, setDotted } from "../src/settings";

const packageJson: unknown = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));

test("client-only keys are never sent to the server", () => {
  assert.equal(isServerKey("enable"), false);
  assert.equal(isServerKey("server.path"), false);
  assert.equal(isServerKey("trace.server"), false);
  assert.equal(isServerKey("vscode.completionList"), false);
  assert.equal(isServerKey("enabled.something"), true);
  assert.equal(isServerKey("completion.multiline"), true);
  assert.equal(isServerKey("backends"), true);
});

test("the most specific scope wins", () => {
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }), 3);
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }), 2);
  assert.equal(explicitValue({ globalValue: 1 }), 1);
  assert.equal(explicitValue({ globalValue: false }), false);
  assert.equal(explicitValue({}), undefined);
  assert.equal(explicitValue(undefined), undefined);
});

test("dotted keys nest into camelCase objects", () => {
  const target = {};
  setDotted(target, "completion.debounceMs", 50);
  setDotted(target, "completion.multiline", "never");
  setDotted(target, "context.budgetTokens", 256);
  assert.deepEqual(target, { completion: { debounceMs: 50, multiline: "never" }, context: { budgetTokens: 256 } });
});

test("serverSettings sends only explicitly set server keys, in the server's shape", () => {
  const backends = [{ name: "local", kind: "openai", url: "http://127.0.0.1:9/v1", model: "m", modelFamily: "qwen2.5-coder" }];
  const values: Record<string, unknown> = {
    backends,
    "completion.multiline": "always",
    "server.path": "/opt/arbor-ls",
    enable: false,
  };
  const settings = serverSettings(contributedKeys(packageJson), (key) =>
    key in values ? { globalValue: values[key] } : {},
  );
  assert.deepEqual(settings, { backends, completion: { multiline: "always" } });
  // The result is a copy: mutating it leaves the configuration's value alone.
  (settings.backends as { name: string }[])[0].name = "changed";
  assert.equal(backends[0].name, "local");
});

test("package.json contributes the server settings the brief names", () => {
  const keys = contributedKeys(packageJson);
  for (const key of ["arbor.backends", "arbor.completion.multiline", "arbor.context.budgetTokens"]) {
    assert.ok(keys.includes(key), `${key} is contributed`);
  }
  for (const key of ["arbor.enable", "arbor.server.path", "arbor.server.args"]) {
    assert.ok(keys.includes(key), `${key} is contributed`);
  }
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { ACCEPT_COMMAND, ShownCompletion, parseAcceptArguments, withAcceptCommand, type ItemLike } from "../src/feedback";

test("every item reports its acceptance and keeps the server's own command", () => {
  const serverCommand = { title: "x", command: "server.cmd", arguments: [1] };
  const items: ItemLike[] = [{ insertText: "a + b" }, { insertText: { value: "return x" }, command: serverCommand }];
  withAcceptCommand(items, "file:///p/a.py");
  assert.equal(items[0].command?.command, ACCEPT_COMMAND);
  const first = parseAcceptArguments(items[0].command?.arguments ?? []);
  assert.deepEqual(first.payload, { uri: "file:///p/a.py", kind: "full", acceptedChars: 5, shownChars: 5, client: "vscode" });
  assert.equal(first.inner, undefined);
  const second = parseAcceptArguments(items[1].command?.arguments ?? []);
  assert.equal(second.payload?.acceptedChars, 8);
  assert.deepEqual(second.inner, serverCommand);
});

test("malformed accept arguments are ignored", () => {
  assert.deepEqual(parseAcceptArguments([]), { payload: undefined, inner: undefined });
  assert.deepEqual(parseAcceptArguments(["x", 3]), { payload: undefined, inner: undefined });
});

test("a dismissal reports the last shown completion once", () => {
  const shown = new ShownCompletion();
  assert.equal(shown.dismiss(), undefined);
  shown.remember("file:///a", [{ insertText: "hello" }, { insertText: "other" }]);
  assert.deepEqual(shown.dismiss(), { uri: "file:///a", shownChars: 5, reason: "dismissed", client: "vscode" });
  assert.equal(shown.dismiss(), undefined);
  shown.remember("file:///a", [{ insertText: "hello" }]);
  shown.accepted();
  assert.equal(shown.dismiss(), undefined);
  shown.remember("file:///a", []);
  assert.equal(shown.dismiss(), undefined);
});

test("a completion is reported shown once: its typed-through or partly accepted rest is the same one", () => {
  const shown = new ShownCompletion();
  assert.deepEqual(shown.remember("file:///a", [{ insertText: "return a + b" }]),
    { uri: "file:///a", shownChars: 12, client: "vscode" });
  assert.equal(shown.remember("file:///a", [{ insertText: "urn a + b" }]), undefined, "typed through");
  assert.equal(shown.remember("file:///a", [{ insertText: " + b" }]), undefined, "accepted in part");
  assert.equal(shown.remember("file:///a", []), undefined, "an empty answer shows nothing");
  assert.equal(shown.shownChars("file:///a"), 12);
  assert.equal(shown.shownChars("file:///b"), 0);
  assert.deepEqual(shown.remember("file:///a", [{ insertText: "print(x)" }]),
    { uri: "file:///a", shownChars: 8, client: "vscode" }, "a different completion");
  assert.deepEqual(shown.remember("file:///b", [{ insertText: "x)" }]),
    { uri: "file:///b", shownChars: 2, client: "vscode" }, "another document");
  shown.accepted();
  assert.deepEqual(shown.remember("file:///b", [{ insertText: "x)" }])?.shownChars, 2, "after an accept it is new");
});

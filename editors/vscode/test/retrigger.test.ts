import { strict as assert } from "node:assert";
import { test } from "node:test";
import { isCompletionReadyParams, type CompletionReadyParams } from "../src/protocol";
import { ReadyRetrigger, readyVerdict, snapshotOf, type EditorSnapshot } from "../src/retrigger";

const URI = "file:///work/p/main.py";
const ready: CompletionReadyParams = { uri: URI, version: 7, position: { line: 1, character: 11 } };

function editorAt(overrides: Partial<EditorSnapshot> = {}, line = 1, character = 11, isEmpty = true): EditorSnapshot {
  return { uri: URI, version: 7, selection: { isEmpty, active: { line, character } }, ...overrides };
}

function counted(): { retrigger: ReadyRetrigger; calls: () => number } {
  let calls = 0;
  return { retrigger: new ReadyRetrigger(() => calls++), calls: () => calls };
}

test("the same document, version and cursor position triggers once", () => {
  const { retrigger, calls } = counted();
  assert.equal(retrigger.onReady(ready, editorAt()), "trigger");
  assert.equal(calls(), 1);
});

test("any mismatch does not trigger", () => {
  const cases: [EditorSnapshot | undefined, string][] = [
    [undefined, "noEditor"],
    [editorAt({ uri: "file:///work/p/other.py" }), "otherDocument"],
    [editorAt({ version: 8 }), "otherVersion"],
    [editorAt({ version: 6 }), "otherVersion"],
    [editorAt({}, 1, 10), "moved"],
    [editorAt({}, 1, 12), "moved"],
    [editorAt({}, 2, 11), "moved"],
    [editorAt({}, 1, 11, false), "selection"],
  ];
  for (const [editor, verdict] of cases) {
    const { retrigger, calls } = counted();
    assert.equal(retrigger.onReady(ready, editor), verdict);
    assert.equal(calls(), 0, verdict);
  }
});

test("a repeated notification for the same spot triggers no second time; a new spot does", () => {
  const { retrigger, calls } = counted();
  retrigger.onReady(ready, editorAt());
  assert.equal(retrigger.onReady({ ...ready }, editorAt()), "repeated");
  assert.equal(calls(), 1);
  const next = { ...ready, version: 8, position: { line: 1, character: 12 } };
  assert.equal(retrigger.onReady(next, editorAt({ version: 8 }, 1, 12)), "trigger");
  assert.equal(calls(), 2);
});

test("a notification that does not apply leaves the once-rule untouched", () => {
  const { retrigger, calls } = counted();
  retrigger.onReady(ready, editorAt({ version: 6 }));
  assert.equal(retrigger.onReady(ready, editorAt()), "trigger");
  assert.equal(calls(), 1);
});

test("the verdict is a pure function of the notification and the editor", () => {
  assert.equal(readyVerdict(ready, editorAt()), "trigger");
  assert.equal(readyVerdict(ready, editorAt()), "trigger");
});

test("an editor is read through the client's uri converter, the primary selection only", () => {
  const editor = {
    document: { uri: { path: "/work/p/main.py" }, version: 7 },
    selection: { isEmpty: true, active: { line: 1, character: 11, extra: "ignored" } },
  };
  const snapshot = snapshotOf(editor, (uri) => `file://${uri.path}`);
  assert.deepEqual(snapshot, editorAt());
  assert.equal(snapshotOf(undefined, String), undefined);
});

test("only well-formed completionReady payloads are accepted", () => {
  assert.ok(isCompletionReadyParams(ready));
  for (const bad of [
    null,
    "x",
    {},
    { ...ready, uri: 3 },
    { ...ready, version: "7" },
    { ...ready, version: 1.5 },
    { ...ready, position: null },
    { ...ready, position: { line: 1 } },
    { ...ready, position: { line: -1, character: 0 } },
  ]) {
    assert.equal(isCompletionReadyParams(bad), false, JSON.stringify(bad));
  }
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { CursorReporter, type Timers } from "../src/cursor";
import type { CursorParams } from "../src/protocol";
import type { EditorSnapshot } from "../src/retrigger";

const URI = "file:///work/p/main.py";

/** Timers that fire only when the test advances the clock. */
class FakeTimers implements Timers<number> {
  now = 0;
  private next = 0;
  private readonly due = new Map<number, { at: number; callback: () => void }>();

  set(callback: () => void, ms: number): number {
    this.next += 1;
    this.due.set(this.next, { at: this.now + ms, callback });
    return this.next;
  }

  clear(handle: number): void {
    this.due.delete(handle);
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [handle, { at, callback }] of [...this.due]) {
      if (at <= this.now) {
        this.due.delete(handle);
        callback();
      }
    }
  }
}

function at(line: number, character: number, version = 3, isEmpty = true): EditorSnapshot {
  return { uri: URI, version, selection: { isEmpty, active: { line, character } } };
}

function reporter(): { cursor: CursorReporter<number>; timers: FakeTimers; sent: CursorParams[] } {
  const timers = new FakeTimers();
  const sent: CursorParams[] = [];
  return { cursor: new CursorReporter((params) => sent.push(params), timers, 150), timers, sent };
}

test("a cursor that rests is reported once, with the document's version", () => {
  const { cursor, timers, sent } = reporter();
  cursor.moved(at(4, 8));
  timers.advance(149);
  assert.equal(sent.length, 0);
  timers.advance(1);
  assert.deepEqual(sent, [{ textDocument: { uri: URI, version: 3 }, position: { line: 4, character: 8 } }]);
  cursor.moved(at(4, 8));
  timers.advance(500);
  assert.equal(sent.length, 1);
});

test("a move before the cursor rests replaces the pending report", () => {
  const { cursor, timers, sent } = reporter();
  cursor.moved(at(1, 0));
  timers.advance(100);
  cursor.moved(at(9, 2));
  timers.advance(100);
  assert.equal(sent.length, 0);
  timers.advance(50);
  assert.deepEqual(sent.map((p) => p.position), [{ line: 9, character: 2 }]);
});

test("a selection, no editor or a cancel reports nothing; a new version reports again", () => {
  const { cursor, timers, sent } = reporter();
  cursor.moved(at(2, 2, 3, false));
  cursor.moved(undefined);
  timers.advance(1000);
  cursor.moved(at(2, 2));
  cursor.cancel();
  timers.advance(1000);
  assert.equal(sent.length, 0);
  cursor.moved(at(2, 2));
  timers.advance(150);
  cursor.moved(at(2, 2, 4));
  timers.advance(150);
  assert.deepEqual(sent.map((p) => p.textDocument.version), [3, 4]);
});

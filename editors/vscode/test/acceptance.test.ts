import { strict as assert } from "node:assert";
import { test } from "node:test";
import { AcceptMeter } from "../src/acceptance";

const URI = "file:///p/a.py";

test("a full accept takes the net length of the change VS Code just made", () => {
  const meter = new AcceptMeter();
  assert.equal(meter.fullAccept(URI), undefined);
  meter.changed(URI, 2, [{ text: "ret", rangeLength: 0 }]); // the user types
  meter.changed(URI, 3, [{ text: "return a + b", rangeLength: 3 }]); // VS Code replaces "ret" with the item
  assert.deepEqual(meter.fullAccept(URI), { chars: 9 });
  assert.equal(meter.fullAccept("file:///p/other.py"), undefined);
});

test("a partial accept sums the changes made while it ran", () => {
  const meter = new AcceptMeter();
  meter.beginPartial(URI);
  meter.changed(URI, 5, [{ text: "compute_", rangeLength: 0 }]);
  meter.changed("file:///p/other.py", 9, [{ text: "elsewhere", rangeLength: 0 }]);
  assert.equal(meter.endPartial(), 8);
  assert.equal(meter.endPartial(), 0, "nothing is running any more");
  meter.beginPartial(URI);
  assert.equal(meter.endPartial(), 0, "no ghost text: nothing inserted");
});

test("a whole accept reached through next-word is reported once, as the partial", () => {
  const meter = new AcceptMeter();
  // the item's command runs while the partial command is still running ...
  meter.beginPartial(URI);
  meter.changed(URI, 7, [{ text: "total", rangeLength: 0 }]);
  assert.deepEqual(meter.fullAccept(URI), { partOfPartial: true });
  assert.equal(meter.endPartial(), 5);
  // ... or just after it: the last change is still the partial's own
  meter.beginPartial(URI);
  meter.changed(URI, 8, [{ text: "()", rangeLength: 0 }]);
  assert.equal(meter.endPartial(), 2);
  assert.deepEqual(meter.fullAccept(URI), { partOfPartial: true });
  // a later change is a new insertion again
  meter.changed(URI, 9, [{ text: " + 1", rangeLength: 0 }]);
  assert.deepEqual(meter.fullAccept(URI), { chars: 4 });
});

test("changes to other documents (an output channel, another file) do not mix in", () => {
  const meter = new AcceptMeter(2);
  meter.changed(URI, 3, [{ text: "a + b", rangeLength: 0 }]);
  meter.changed("output:arbor-ls", 40, [{ text: "[info] a log line", rangeLength: 0 }]);
  assert.deepEqual(meter.fullAccept(URI), { chars: 5 });
  meter.changed("file:///p/b.py", 1, [{ text: "x", rangeLength: 0 }]);
  meter.changed("file:///p/c.py", 1, [{ text: "y", rangeLength: 0 }]);
  assert.equal(meter.fullAccept(URI), undefined, "forgotten past its size: the payload's own length is used");
});

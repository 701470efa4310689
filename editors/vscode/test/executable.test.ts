import { strict as assert } from "node:assert";
import { test } from "node:test";
import { candidates, resolveExecutable, type LookupEnvironment } from "../src/executable";

function env(executables: string[], overrides: Partial<LookupEnvironment> = {}): LookupEnvironment {
  return {
    pathVariable: "/usr/local/bin:/usr/bin",
    home: "/home/u",
    workspaceFolders: ["/proj"],
    isExecutable: (candidate) => executables.includes(candidate),
    platform: "linux",
    ...overrides,
  };
}

test("a bare name is looked up on PATH first, then in the workspace's venvs", () => {
  assert.deepEqual(candidates("arbor-ls", env([])), [
    "/usr/local/bin/arbor-ls",
    "/usr/bin/arbor-ls",
    "/proj/.venv/bin/arbor-ls",
    "/proj/venv/bin/arbor-ls",
  ]);
  assert.deepEqual(resolveExecutable("arbor-ls", env(["/usr/bin/arbor-ls", "/proj/.venv/bin/arbor-ls"])), {
    found: true,
    path: "/usr/bin/arbor-ls",
  });
  assert.deepEqual(resolveExecutable("arbor-ls", env(["/proj/.venv/bin/arbor-ls"])), {
    found: true,
    path: "/proj/.venv/bin/arbor-ls",
  });
});

test("paths expand ~ and resolve relative to the workspace", () => {
  assert.deepEqual(candidates("~/bin/arbor-ls", env([])), ["/home/u/bin/arbor-ls"]);
  assert.deepEqual(candidates("./tools/arbor-ls", env([])), ["/proj/tools/arbor-ls"]);
  assert.deepEqual(candidates("/opt/arbor-ls", env([])), ["/opt/arbor-ls"]);
});

test("a missing executable gives a message that says what to do", () => {
  const result = resolveExecutable("arbor-ls", env([]));
  assert.equal(result.found, false);
  if (!result.found) {
    assert.match(result.message, /arbor-ls was not found/);
    assert.match(result.message, /arbor\.server\.path/);
    assert.ok(result.message.includes("`pipx install 'arbor-ls[embedded]'`"), result.message);
    assert.equal(result.searched.length, 4);
  }
  const empty = resolveExecutable("  ", env([]));
  assert.equal(empty.found, false);
});

test("windows names try .exe and .cmd", () => {
  const names = candidates("arbor-ls", env([], { pathVariable: "/w/bin", workspaceFolders: ["/proj"], platform: "win32" }));
  assert.deepEqual(names.slice(0, 3), ["/w/bin/arbor-ls.exe", "/w/bin/arbor-ls.cmd", "/w/bin/arbor-ls"]);
  assert.ok(names.includes("/proj/.venv/Scripts/arbor-ls.exe"));
});

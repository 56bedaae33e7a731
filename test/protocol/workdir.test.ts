// The settings' workdir names a directory inside the workspace, in plain names only: no part of
// it may lead out of the workspace or into git's own files.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { BadSettingsError, checkSettings } from "../../src/protocol/index.js";

const base = { agent: "command", command: ["true"] };

test("a workdir of plain names is taken", () => {
  assert.equal(checkSettings({ ...base, workdir: "pkg/app" }).workdir, "pkg/app");
});

for (const workdir of [
  "..",
  "pkg/../..",
  "/etc",
  "pkg/",
  "./pkg",
  ".git/hooks",
  "a//b",
  "a\nb",
  "",
]) {
  test(`a workdir of ${JSON.stringify(workdir)} is refused`, () => {
    assert.throws(() => checkSettings({ ...base, workdir }), BadSettingsError);
  });
}

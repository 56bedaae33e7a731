import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { measureSettledTree } from "../../src/sandbox/measureSettledTree.js";

function du(dir: string, unit: "-B1" | "--inodes"): number {
  const out = execFileSync("du", ["-s", "-x", "-P", unit, "--", dir], { encoding: "utf8" });
  return Number(/^(\d+)/.exec(out)?.[1]);
}

/** A workspace with what a task leaves: nested files, an empty file, a link, a hard link. */
async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "warden-measure-"));
  await mkdir(join(dir, "src", "deep"), { recursive: true });
  await writeFile(join(dir, "src", "a.ts"), "a".repeat(10_000));
  await writeFile(join(dir, "src", "deep", "b.ts"), "b".repeat(70_000));
  await writeFile(join(dir, "empty"), "");
  await symlink("/etc/passwd", join(dir, "link"));
  await link(join(dir, "src", "a.ts"), join(dir, "hard"));
  return dir;
}

test("a settled workspace measures as du counts it, in bytes and in entries", async (t) => {
  const dir = await workspace();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const measured = measureSettledTree(dir, 100);
  assert.deepEqual(measured, { bytes: du(dir, "-B1"), entries: du(dir, "--inodes") });
});

test("a workspace of more entries than the limit is left to du", async (t) => {
  const dir = await workspace();
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(measureSettledTree(dir, 5), undefined);
  assert.equal(measureSettledTree(join(dir, "link"), 100), undefined, "a link is no tree");
});

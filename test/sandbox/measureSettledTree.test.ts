import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { diskBoundReached } from "../../src/sandbox/sandboxBounds.js";
import { WorkspaceMeter } from "../../src/sandbox/workspaceMeter.js";
import { measureSettledTree, type SettledWalk } from "../../src/sandbox/measureSettledTree.js";

function du(dir: string, unit: "-B1" | "--inodes"): number {
  const out = execFileSync("du", ["-s", "-x", "-P", unit, "--", dir], { encoding: "utf8" });
  return Number(/^(\d+)/.exec(out)?.[1]);
}

/** No stop: the walk reads the whole tree, two entries at a time. */
const WHOLE: SettledWalk = {
  sliceEntries: 2,
  stopAboveBytes: Number.MAX_SAFE_INTEGER,
  stopAboveEntries: Number.MAX_SAFE_INTEGER,
};

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

/** A flat directory of `count` small files. */
async function manyFiles(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "warden-measure-many-"));
  await Promise.all(
    Array.from({ length: count }, (_, i) => writeFile(join(dir, `f${i}`), "x".repeat(100))),
  );
  return dir;
}

test("a settled workspace measures as du counts it, in bytes and in entries", async (t) => {
  const dir = await workspace();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const measured = await measureSettledTree(dir, WHOLE);
  assert.deepEqual(measured, { bytes: du(dir, "-B1"), entries: du(dir, "--inodes") });
});

test("a walk that passes a stop ends there, with totals past the stop", async (t) => {
  const dir = await manyFiles(50);
  t.after(() => rm(dir, { recursive: true, force: true }));
  const byEntries = await measureSettledTree(dir, { ...WHOLE, stopAboveEntries: 10 });
  assert.equal(byEntries?.entries, 11);
  const whole = await measureSettledTree(dir, WHOLE);
  assert.equal(whole?.entries, 51);
  const byBytes = await measureSettledTree(dir, { ...WHOLE, stopAboveBytes: 8192 });
  assert.ok(byBytes !== undefined && byBytes.bytes > 8192, JSON.stringify(byBytes));
  assert.ok(byBytes.entries < 51, "the walk ended before the last file");
});

test("a link is no tree: it is left to du", async (t) => {
  const dir = await workspace();
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(await measureSettledTree(join(dir, "link"), WHOLE), undefined);
});

test("the host's other work goes on while a large workspace is measured", async (t) => {
  const dir = await manyFiles(400);
  t.after(() => rm(dir, { recursive: true, force: true }));
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const measured = await measureSettledTree(dir, { ...WHOLE, sliceEntries: 10 });
  counting = false;
  assert.equal(measured?.entries, 401);
  assert.ok(turns >= 20, `the event loop turned ${turns} times during the walk`);
});

test("the last look at a workspace of thousands of files starts no du", async (t) => {
  // A du first on PATH that leaves a mark: the look after the sandbox's end must not run it,
  // as the looks while it runs must.
  const dir = await manyFiles(3000);
  const bin = await mkdtemp(join(tmpdir(), "warden-measure-bin-"));
  const mark = join(bin, "du-ran");
  t.after(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(bin, { recursive: true, force: true });
  });
  await writeFile(join(bin, "du"), `#!/bin/sh\necho ran >> ${mark}\nexec /usr/bin/du "$@"\n`, {
    mode: 0o755,
  });
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path ?? ""}`;
  t.after(() => {
    process.env.PATH = path;
  });
  const meter = new WorkspaceMeter();
  assert.equal(await diskBoundReached(dir, 1024 * 1024 * 1024, meter, true), null);
  assert.deepEqual(
    await diskBoundReached(dir, 1024 * 1024, meter, true),
    { bound: "disk", detail: "the workspace's disk bound of 1 MiB" },
    "a settled workspace over its bytes is seen",
  );
  await assert.rejects(readFile(mark), { code: "ENOENT" });
  assert.equal(await diskBoundReached(dir, 1024 * 1024 * 1024, meter, false), null);
  assert.match(await readFile(mark, "utf8"), /ran/, "a look while the sandbox runs uses du");
});

// One meter measures every running sandbox's workspace of a process: rounds of one du for bytes
// and one for entries over all of them, a workspace du cannot finish measured on its own, and a
// disk bound still seen for the one sandbox that passes it.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { describe, test, type TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { BwrapBackend } from "../../src/sandbox/bwrapBackend.js";
import type { SandboxBound } from "../../src/sandbox/sandboxBounds.js";
import { WorkspaceMeter } from "../../src/sandbox/workspaceMeter.js";
import {
  makeTaskDirs,
  NEEDS_BWRAP,
  removeTaskDirs,
  request,
  shell,
  TEST_LIMITS,
} from "./sandboxFixture.js";

const MiB = 1024 * 1024;

function du(dir: string, unit: "-B1" | "--inodes"): number {
  const out = execFileSync("/usr/bin/du", ["-s", "-x", "-P", unit, "--", dir], {
    encoding: "utf8",
  });
  return Number(/^(\d+)/.exec(out)?.[1]);
}

/** A directory of `files` small files under `root`. */
async function workspace(root: string, name: string, files: number): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < files; i++) await writeFile(join(dir, `f${i}`), "x".repeat(5000 * (i + 1)));
  return dir;
}

/**
 * Puts a du first on PATH for the rest of the test that logs each run's directories, one line per
 * run, and, when a run names `slow`, prints the totals of the directories before it and then
 * hangs, as a du walking a huge tree does.
 */
async function loggingDu(t: TestContext, slow = "/nowhere"): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), "warden-meter-bin-"));
  const log = join(bin, "runs");
  const script = `#!/bin/bash
printf '%s ' "\${@:7}" >> ${log}
echo >> ${log}
for dir in "\${@:7}"; do
  if [ "$dir" = ${JSON.stringify(slow)} ]; then exec sleep 30; fi
  /usr/bin/du "\${@:1:5}" -- "$dir"
done
`;
  await writeFile(join(bin, "du"), script);
  await chmod(join(bin, "du"), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path ?? ""}`;
  t.after(async () => {
    process.env.PATH = path;
    await rm(bin, { recursive: true, force: true });
  });
  return log;
}

/** The directories each du run was given, one list per run, in the order they ran. */
async function runs(log: string): Promise<string[][]> {
  const text = await readFile(log, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.split(" ").filter((word) => word !== ""));
}

describe("a workspace meter", () => {
  test("workspaces asked about together are measured by one du for bytes and one for entries", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const dirs = await Promise.all([1, 2, 3, 4].map((n) => workspace(root, `w${n}`, n * 3)));
    const log = await loggingDu(t);
    const meter = new WorkspaceMeter();
    const found = await Promise.all(dirs.map((dir) => meter.measure(dir)));
    for (const [i, dir] of dirs.entries())
      assert.deepEqual(found[i], { bytes: du(dir, "-B1"), entries: du(dir, "--inodes") }, dir);
    const ran = await runs(log);
    assert.equal(ran.length, 2, `du ran ${ran.length} times`);
    for (const run of ran) assert.deepEqual([...run].sort(), [...dirs].sort());
  });

  test("a round starts no sooner than the gap after the last, and asks made meanwhile share it", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const [a, b] = await Promise.all([workspace(root, "a", 2), workspace(root, "b", 2)]);
    const log = await loggingDu(t);
    const meter = new WorkspaceMeter({ gapMs: 400 });
    const first = performance.now();
    await meter.measure(a);
    const later = [meter.measure(a), sleep(100).then(() => meter.measure(b))];
    await Promise.all(later);
    const waited = performance.now() - first;
    assert.ok(waited >= 390, `the second round came ${waited.toFixed(0)} ms after the first`);
    const ran = await runs(log);
    assert.equal(ran.length, 4, "two rounds, each one du for bytes and one for entries");
    assert.deepEqual([...(ran[2] ?? [])].sort(), [a, b].sort());
  });

  test("a workspace du cannot walk in time is measured apart, and the others' totals do not wait for it", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const [a, slow, b] = await Promise.all(
      ["a", "slow", "b"].map((name) => workspace(root, name, 2)),
    );
    if (a === undefined || slow === undefined || b === undefined) throw new Error("no dirs");
    const log = await loggingDu(t, slow);
    const meter = new WorkspaceMeter({ gapMs: 0, timeoutMs: 700 });
    const first = await Promise.all([a, slow, b].map((dir) => meter.measure(dir)));
    assert.deepEqual(first[0], { bytes: du(a, "-B1"), entries: du(a, "--inodes") });
    assert.deepEqual(first[1], { bytes: null, entries: null }, "the slow one has no totals");
    assert.deepEqual(first[2], { bytes: du(b, "-B1"), entries: du(b, "--inodes") });
    const before = (await runs(log)).length;
    // From now on the slow one is measured apart, so the others' du ends at once.
    const started = performance.now();
    let slowMeasured = false;
    const slowAgain = meter.measure(slow).then(() => {
      slowMeasured = true;
      return performance.now() - started;
    });
    const [againA, againB] = await Promise.all([meter.measure(a), meter.measure(b)]);
    assert.equal(slowMeasured, false, "the others' totals came while the slow one was measured");
    assert.deepEqual(againA, first[0]);
    assert.deepEqual(againB, first[2]);
    assert.ok((await slowAgain) >= 650, "the slow one was stopped at its timeout");
    const ran = (await runs(log)).slice(before);
    assert.deepEqual(
      ran.map((run) => [...run].sort().join(" ")).sort(),
      [[a, b].sort().join(" "), [a, b].sort().join(" "), slow, slow].sort(),
      "the round ran a and b together, and the slow one by itself",
    );
  });

  test("workspaces du did not reach before its timeout are measured together by the next pair", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const [a, slow, b, c] = await Promise.all(
      ["a", "slow", "b", "c"].map((name) => workspace(root, name, 2)),
    );
    if (a === undefined || slow === undefined || b === undefined || c === undefined)
      throw new Error("no dirs");
    const log = await loggingDu(t, slow);
    const meter = new WorkspaceMeter({ gapMs: 0, timeoutMs: 700 });
    const found = await Promise.all([a, slow, b, c].map((dir) => meter.measure(dir)));
    for (const [i, dir] of [a, b, c].entries())
      assert.deepEqual(found[i === 0 ? 0 : i + 1], {
        bytes: du(dir, "-B1"),
        entries: du(dir, "--inodes"),
      });
    assert.deepEqual(found[1], { bytes: null, entries: null });
    const ran = (await runs(log)).map((run) => run.join(" "));
    assert.deepEqual(
      ran,
      [
        [a, slow, b, c].join(" "),
        [a, slow, b, c].join(" "),
        [b, c].join(" "),
        [b, c].join(" "),
        slow,
        slow,
      ],
      "b and c, after the cut, were measured by one more pair, not one by one",
    );
  });

  test("a workspace that is gone has no totals, and the others still have theirs", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const a = await workspace(root, "a", 3);
    const meter = new WorkspaceMeter();
    const [gone, here] = await Promise.all([meter.measure(join(root, "gone")), meter.measure(a)]);
    assert.deepEqual(gone, { bytes: null, entries: null });
    assert.deepEqual(here, { bytes: du(a, "-B1"), entries: du(a, "--inodes") });
  });

  test("a path with a tab, a newline or another's digits in it gets its own totals", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "warden-meter-"));
    t.after(() => rm(root, { recursive: true, force: true }));
    const plain = await workspace(root, "plain", 1);
    const odd = await workspace(root, `odd\n999999\t${plain}`, 4);
    const meter = new WorkspaceMeter();
    const [p, o] = await Promise.all([meter.measure(plain), meter.measure(odd)]);
    assert.deepEqual(p, { bytes: du(plain, "-B1"), entries: du(plain, "--inodes") });
    assert.deepEqual(o, { bytes: du(odd, "-B1"), entries: du(odd, "--inodes") });
  });
});

describe("bwrap sandboxes sharing one meter", () => {
  test(
    "only the sandbox whose workspace passes its disk bound is told so",
    { skip: NEEDS_BWRAP, timeout: 60_000 },
    async (t) => {
      const meter = new WorkspaceMeter();
      const [writerDirs, quietDirs] = await Promise.all([makeTaskDirs(), makeTaskDirs()]);
      t.after(async () => {
        await removeTaskDirs(writerDirs);
        await removeTaskDirs(quietDirs);
      });
      const limits = { ...TEST_LIMITS, diskBytes: 16 * MiB };
      const writer = await new BwrapBackend({ meter }).start(
        request(writerDirs, shell("head -c 40000000 /dev/zero > big && exec sleep 60"), {
          limits,
        }),
      );
      const quiet = await new BwrapBackend({ meter }).start(
        request(quietDirs, shell("echo small > small && exec sleep 60"), { limits }),
      );
      const bounds: { writer?: SandboxBound; quiet?: SandboxBound } = {};
      writer.onBound((bound) => (bounds.writer = bound));
      quiet.onBound((bound) => (bounds.quiet = bound));
      const deadline = performance.now() + 20_000;
      while (bounds.writer === undefined && performance.now() < deadline) await sleep(100);
      // Two more rounds, in which the quiet one would have been told by mistake.
      await sleep(2_500);
      await Promise.all([writer.stop(1_000), quiet.stop(1_000)]);
      assert.equal(bounds.writer?.bound, "disk");
      assert.match(bounds.writer.detail, /disk bound of 16 MiB/);
      assert.equal(bounds.quiet, undefined);
      assert.equal((await writer.exit).bound?.bound, "disk");
      assert.equal((await quiet.exit).bound, null);
    },
  );
});

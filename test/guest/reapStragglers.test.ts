import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ProcessTable } from "../../src/guest/processTable.js";
import { reapStragglers } from "../../src/guest/reapStragglers.js";

const table = new ProcessTable();

function sleeper(env: Record<string, string>, ignoreTerm = false): number {
  const script = ignoreTerm ? "trap '' TERM; while :; do sleep 0.05; done" : "exec sleep 1000";
  const child = spawn("sh", ["-c", script], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  if (child.pid === undefined) throw new Error("could not start a sleeper");
  return child.pid;
}

async function waitForEnv(pid: number, entry: string): Promise<void> {
  for (let i = 0; i < 200 && table.hasEnvEntry(pid, entry) !== true; i++) await sleep(10);
}

test("a detached process with the run's marker is stopped, one without it is left alone", async (t) => {
  const marker = `WARDEN_GUEST_RUN=test-${process.pid}-${Date.now()}`;
  const [name, value] = marker.split("=") as [string, string];
  const marked = sleeper({ [name]: value });
  const other = sleeper({ [name]: `${value}-not-this-run` });
  t.after(() => {
    for (const pid of [marked, other]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
  await waitForEnv(marked, marker);
  const reaped = await reapStragglers({
    scope: { kind: "agent", pgid: undefined, marker },
    graceMs: 2_000,
  });
  assert.deepEqual(
    reaped.stopped.map((entry) => entry.pid),
    [marked],
  );
  assert.deepEqual(reaped.unreachable, []);
  assert.equal(table.alive(marked), false);
  assert.equal(table.alive(other), true, "a process without the marker still runs");
});

test("a process that ignores SIGTERM gets SIGKILL after the grace", async (t) => {
  const marker = `WARDEN_GUEST_RUN=stubborn-${process.pid}-${Date.now()}`;
  const [name, value] = marker.split("=") as [string, string];
  const stubborn = sleeper({ [name]: value }, true);
  t.after(() => {
    try {
      process.kill(stubborn, "SIGKILL");
    } catch {
      // Already gone.
    }
  });
  await waitForEnv(stubborn, marker);
  await sleep(100); // Let the shell install its trap.
  const started = Date.now();
  const reaped = await reapStragglers({
    scope: { kind: "agent", pgid: stubborn, marker },
    graceMs: 300,
  });
  assert.ok(Date.now() - started >= 300, "the grace was waited out");
  assert.ok(reaped.stopped.some((entry) => entry.pid === stubborn));
  assert.equal(table.alive(stubborn), false);
});

/** A marked shell that stands for the runner's parent, and the marked sleeper it started. */
async function markedParentAndChild(env: Record<string, string>): Promise<[number, number]> {
  const parent = spawn("sh", ["-c", "sleep 1000 & echo $!; wait"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  if (parent.pid === undefined) throw new Error("could not start a shell");
  const line = await new Promise<string>((resolve, reject) => {
    parent.stdout.once("data", (chunk: Buffer) => {
      resolve(chunk.toString());
    });
    parent.once("error", reject);
  });
  parent.stdout.destroy();
  parent.unref();
  return [parent.pid, Number(line.trim())];
}

test("the runner never counts itself or its ancestors", async (t) => {
  const marker = `WARDEN_GUEST_RUN=lineage-${process.pid}-${Date.now()}`;
  const [name, value] = marker.split("=") as [string, string];
  // The runner and its parent carry the run's marker, as they do in a sandbox without a PID
  // namespace of its own; only the straggler beside them may be stopped.
  const [parent, runner] = await markedParentAndChild({ [name]: value });
  const straggler = sleeper({ [name]: value });
  t.after(() => {
    for (const pid of [runner, parent, straggler]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
  for (const pid of [runner, straggler]) await waitForEnv(pid, marker);
  const lineage = table.lineage(runner);
  assert.ok(lineage.has(runner) && lineage.has(parent) && lineage.has(process.pid));
  const reaped = await reapStragglers({
    scope: { kind: "agent", pgid: undefined, marker },
    graceMs: 2_000,
    self: runner,
  });
  assert.deepEqual(
    reaped.stopped.map((entry) => entry.pid),
    [straggler],
  );
  assert.equal(table.alive(runner), true, "the runner still runs");
  assert.equal(table.alive(parent), true, "the runner's parent still runs");
  assert.equal(table.alive(straggler), false);
});

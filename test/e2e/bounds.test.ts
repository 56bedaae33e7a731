// Every task has bounds by default, and a task that reaches one ends `failed` with `stoppedBy`
// naming it and a message that says which, while the host and other tasks carry on: a fork
// loop, a memory hog, a writer past --disk and a /tmp filler, each with small explicit bounds.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EXIT } from "../../src/cli/exitCodes.js";
import { skipWhen } from "../support/skipWhen.js";
import { NO_SYSTEM, runCli, workspace, type Workspace } from "./fixtures.js";

/**
 * Why the memory and process tests cannot run: they need a writable cgroup, which only root has
 * on a test machine. The disk bound is the host's own measurement and runs for anyone.
 */
const NO_CGROUP = skipWhen(
  process.getuid?.() !== 0 && "the memory and process bounds need a writable cgroup: run as root",
);

interface Ended {
  code: number | null;
  view: { id: string; state: string; stoppedBy?: string | null; error?: string };
  stderr: string;
}

describe("bounds a task reaches", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;

  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await ws.cleanup();
  });

  /** `warden run --json` of a shell command as the agent, with the given bounds. */
  async function runBounded(bounds: string[], script: string): Promise<Ended> {
    const result = await runCli(ws.dataDir, [
      "run",
      "--repo",
      ws.repo,
      "--prompt",
      "reach a bound",
      "--json",
      // A bound that failed to hold would end the task by this time limit instead, and the
      // test would fail on `stoppedBy` rather than hang.
      "--timeout",
      "60",
      ...bounds,
      "--",
      "sh",
      "-c",
      script,
    ]);
    const view = JSON.parse(result.stdout) as Ended["view"];
    return { code: result.code, view, stderr: result.stderr };
  }

  test(
    "a fork loop ends the task failed with stoppedBy processes",
    { skip: NO_CGROUP },
    async () => {
      const ended = await runBounded(["--max-processes", "64"], "while :; do sleep 30 & done");
      assert.equal(ended.view.state, "failed", ended.stderr);
      assert.equal(ended.view.stoppedBy, "processes");
      assert.match(ended.view.error ?? "", /bound of 64 processes.*--max-processes/);
      assert.equal(ended.code, EXIT.bound);
    },
  );

  test("a memory hog ends the task failed with stoppedBy memory", { skip: NO_CGROUP }, async () => {
    const ended = await runBounded(
      ["--memory", "128M"],
      "node -e 'const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))'",
    );
    assert.equal(ended.view.state, "failed", ended.stderr);
    assert.equal(ended.view.stoppedBy, "memory");
    assert.match(ended.view.error ?? "", /memory bound of 128 MiB/);
    assert.equal(ended.code, EXIT.bound);
  });

  test("a writer past --disk 256M ends the task failed with stoppedBy disk", async () => {
    const ended = await runBounded(
      ["--disk", "256M"],
      "i=0; while :; do head -c 16777216 /dev/zero > big$i; i=$((i+1)); sleep 0.05; done",
    );
    assert.equal(ended.view.state, "failed", ended.stderr);
    assert.equal(ended.view.stoppedBy, "disk");
    assert.match(ended.view.error ?? "", /disk bound of 256 MiB.*--disk/);
    assert.equal(ended.code, EXIT.bound);
    // The writer never stops by itself: the host saw the bound and stopped the sandbox.
    const events = await readFile(join(ws.dataDir, "tasks", ended.view.id, "events.jsonl"), "utf8");
    const types = events
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; reason?: string; bound?: string });
    assert.ok(
      types.some((e) => e.type === "bound" && e.bound === "disk"),
      "no bound event",
    );
    assert.ok(
      types.some((e) => e.type === "stopping" && e.reason === "bound"),
      "the host did not stop the sandbox for its bound",
    );
  });

  test(
    "a /tmp filler is held by the memory bound and says so, not 'no result.json'",
    { skip: NO_CGROUP },
    async () => {
      const ended = await runBounded(
        ["--memory", "192M"],
        "i=0; while :; do head -c 16777216 /dev/zero > /tmp/fill$i || exit 1; i=$((i+1)); done",
      );
      assert.equal(ended.view.state, "failed", ended.stderr);
      assert.equal(ended.view.stoppedBy, "memory");
      assert.match(ended.view.error ?? "", /\/tmp and home are in memory/);
      assert.doesNotMatch(ended.view.error ?? "", /result\.json/);
    },
  );

  test("after all of them the host runs an ordinary task to success", async () => {
    const ended = await runBounded([], "echo fine > fine.txt");
    assert.equal(ended.view.state, "succeeded", ended.stderr);
    assert.equal(ended.code, 0);
  });
});

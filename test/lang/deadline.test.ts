// A deadline's signal fires at its time even when nothing but the step that waits on it holds it,
// and the garbage collector runs in between; a step that waits on a notification's delivery is
// stopped by it the same way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startDeadline } from "../../src/lang/index.js";
import { DeliveryError, NOTIFY_TIMING, NotifyQueue } from "../../src/web/notifyQueue.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Collects garbage now and then until `ms` has passed: what nothing holds is gone by then. */
async function collectFor(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    collectGarbage();
    await sleep(10);
  }
}

/** A step that ends only when its signal aborts, as a hung command or webhook does. */
function hangUntilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener("abort", () => {
      reject(new DeliveryError("it was stopped", true));
    });
  });
}

test("a deadline fires at its time though the collector ran while it waited", async () => {
  const stop = new AbortController();
  const waited = (async () => {
    const deadline = startDeadline(200, stop.signal, () => new Error("too slow"));
    try {
      await hangUntilAborted(deadline.signal);
    } catch (error) {
      return (deadline.signal.reason as Error).message + " / " + (error as Error).message;
    }
    return "never";
  })();
  await collectFor(400);
  const outcome = await Promise.race([waited, sleep(2_000, "still waiting")]);
  assert.equal(outcome, "too slow / it was stopped");
});

test("a deadline ends with the stop signal's reason when the stop comes first", () => {
  const stop = new AbortController();
  const deadline = startDeadline(60_000, stop.signal, () => new Error("too slow"));
  stop.abort(new Error("stopped by the runner"));
  assert.equal((deadline.signal.reason as Error).message, "stopped by the runner");
  deadline.clear();
});

test("a notification whose delivery hangs is given up at its timeout though the collector ran", async () => {
  const problems: string[] = [];
  const queue = new NotifyQueue(
    (_json, signal) => hangUntilAborted(signal),
    (problem) => problems.push(problem),
    { ...NOTIFY_TIMING, attempts: 1, timeoutMs: 200 },
  );
  queue.push({ event: "succeeded", at: 0, task: { id: "t1", title: "", state: "succeeded" } });
  await collectFor(400);
  for (let waited = 0; problems.length === 0 && waited < 2_000; waited += 20) await sleep(20);
  await queue.close();
  assert.deepEqual(problems, ["it was stopped; the notification is dropped after 1 tries"]);
});

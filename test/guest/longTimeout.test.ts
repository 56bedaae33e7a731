import { strict as assert } from "node:assert";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { MAX_TIMER_MS, setLongTimeout } from "../../src/guest/longTimeout.js";

test("a timeout longer than setTimeout allows does not fire at once", async () => {
  let fired = false;
  const cancel = setLongTimeout(MAX_TIMER_MS + 5_000, () => {
    fired = true;
  });
  await sleep(50);
  cancel();
  assert.equal(fired, false);
});

test("a short timeout fires once, and a cancelled one never", async () => {
  let fired = 0;
  setLongTimeout(10, () => fired++);
  const cancel = setLongTimeout(10, () => fired++);
  cancel();
  await sleep(60);
  assert.equal(fired, 1);
});

// settled and unwrap: work started early and awaited late, its failure kept as a value until the
// caller asks for it, and never an unhandled rejection meanwhile.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { settled, unwrap } from "../../src/lang/index.js";

test("a fulfilled promise settles to its value, which unwrap gives back", async () => {
  const outcome = await settled(Promise.resolve(42));
  assert.deepEqual(outcome, { ok: true, value: 42 });
  assert.equal(unwrap(outcome), 42);
});

test("a rejected promise settles to its error, which unwrap throws", async () => {
  const error = new Error("no such repository");
  const outcome = await settled(Promise.reject(error));
  assert.deepEqual(outcome, { ok: false, error });
  assert.throws(
    () => unwrap(outcome),
    (thrown: unknown) => thrown === error,
  );
});

test("a failure awaited only later is not an unhandled rejection meanwhile", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on("unhandledRejection", onUnhandled);
  try {
    const early = settled(Promise.reject(new Error("early")));
    await sleep(20);
    assert.deepEqual(unhandled, []);
    assert.equal((await early).ok, false);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  RecentMap,
  definedFields,
  errorMessage,
  exitCodeOf,
  exitText,
  within,
} from "../../src/lang/index.js";

test("a thrown Error gives its message, anything else what String() makes of it", () => {
  assert.equal(errorMessage(new TypeError("bad input")), "bad input");
  assert.equal(errorMessage("plain words"), "plain words");
  assert.equal(errorMessage(42), "42");
  assert.equal(errorMessage(undefined), "undefined");
});

test("within gives up with undefined after its time, and a promise that settles first wins", async () => {
  const started = Date.now();
  assert.equal(await within(new Promise<number>(() => undefined), 30), undefined);
  assert.ok(Date.now() - started >= 25, "it waited its time");
  assert.equal(await within(Promise.resolve(7), 60_000), 7);
  await assert.rejects(within(Promise.reject(new Error("broke")), 60_000), /broke/);
});

test("an exit code over 128 names its signal, and a signal's end reads as 128 + its number", () => {
  assert.equal(exitText(143), "exit 143, SIGTERM");
  assert.equal(exitText(134), "exit 134, SIGABRT");
  assert.equal(exitText(1), "exit 1");
  assert.equal(exitText(128), "exit 128");
  assert.equal(exitText(255), "exit 255");
  assert.equal(exitText(137), "exit 137, SIGKILL");
  assert.equal(exitCodeOf(null, "SIGKILL"), 137);
  assert.equal(exitCodeOf(3, null), 3);
});

test("a RecentMap forgets its oldest entry past its bound; setting a key again makes it the newest", () => {
  const map = new RecentMap<string, number>(2);
  map.set("a", 1);
  map.set("b", 2);
  map.set("a", 3);
  map.set("c", 4);
  assert.equal(map.has("b"), false, "b was the oldest");
  assert.equal(map.get("a"), 3);
  assert.equal(map.get("c"), 4);
  assert.equal(map.delete("a"), true);
  assert.equal(map.delete("a"), false);
});

test("definedFields leaves out undefined only, and keeps the order of the rest", () => {
  const kept = definedFields({ a: 0, b: undefined, c: null, d: false, e: "", f: undefined });
  assert.deepStrictEqual(kept, { a: 0, c: null, d: false, e: "" });
  assert.deepStrictEqual(Object.keys(kept), ["a", "c", "d", "e"]);
});

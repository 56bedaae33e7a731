// history.json, the share's pointer to the history repository: checked the same on both sides.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatHistoryInput, parseHistoryInput } from "../../src/protocol/index.js";

const base = "a".repeat(40);
const bytes = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));

test("a history.json the host writes is read back as it was", () => {
  const input = { base, repository: "/data/history/k/gen-0123456789abcdef" };
  assert.deepEqual(parseHistoryInput(Buffer.from(formatHistoryInput(input))), input);
});

test("a history.json with a relative, unclean or multi-line repository path is refused", () => {
  for (const repository of ["data/history", "/data/../etc", "/data/x/", "/data/x\n/etc"]) {
    assert.throws(
      () => parseHistoryInput(bytes({ base, repository })),
      (error: Error & { code?: string }) => error.code === "BAD_SHARE",
      repository,
    );
  }
});

test("a history.json with an unknown field or a base that is not an object id is refused", () => {
  for (const value of [
    { base, repository: "/r", extra: 1 },
    { base: "HEAD", repository: "/r" },
    { base: base.toUpperCase(), repository: "/r" },
  ]) {
    assert.throws(() => parseHistoryInput(bytes(value)), { code: "BAD_SHARE" });
  }
});

test("a history.json over its limit is refused before it is parsed", () => {
  const repository = `/${"x".repeat(9000)}`;
  assert.throws(() => parseHistoryInput(bytes({ base, repository })), /over the limit/);
});

import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import {
  BadResultsError,
  LIMITS,
  formatResult,
  parseResult,
  type Result,
} from "../../src/protocol/index.js";

const base = "1".repeat(40);
const head = "2".repeat(40);

const good: Result = {
  base,
  head,
  agent: "command",
  agentExitCode: 0,
  agentResult: { type: "result", cost: 0.12 },
  timedOut: false,
  leftovers: true,
  truncated: ["transcript.jsonl"],
  warnings: ["could not commit x"],
};

function bytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function refused(input: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => parseResult(input),
    (error: unknown) => {
      assert.ok(error instanceof BadResultsError);
      assert.equal(error.code, "BAD_RESULTS");
      assert.match(error.message, pattern);
      return true;
    },
  );
}

describe("parseResult", () => {
  test("a good result round-trips through formatResult", () => {
    assert.deepEqual(parseResult(formatResult(good)), good);
  });

  test("a sha256 base and head are taken", () => {
    const wide = { ...good, base: "a".repeat(64), head: "b".repeat(64) };
    assert.deepEqual(parseResult(bytes(wide)), wide);
  });

  test("an unknown field is refused", () => {
    refused(bytes({ ...good, pwned: true }), /pwned/);
  });

  test("a bad oid is refused", () => {
    refused(bytes({ ...good, head: "HEAD" }), /head/);
    refused(bytes({ ...good, head: "A".repeat(40) }), /head/);
    refused(bytes({ ...good, base: "1".repeat(39) }), /base/);
    refused(bytes({ ...good, base: "1".repeat(41) }), /base/);
  });

  test("trailing data after the JSON is refused", () => {
    refused(Buffer.concat([bytes(good), Buffer.from("{}")]), /not JSON/);
  });

  test("result.json over 1 MiB is refused before it is parsed", () => {
    const big = Buffer.alloc(LIMITS.resultBytes + 1, 0x20);
    refused(big, /over the limit/);
  });

  test("an agentResult over 64 KiB is refused", () => {
    const agentResult = { text: "x".repeat(LIMITS.agentResultBytes) };
    refused(bytes({ ...good, agentResult }), /agentResult/);
  });

  test("an agentResult that is not an object is refused", () => {
    refused(bytes({ ...good, agentResult: [1, 2] }), /agentResult/);
    refused(bytes({ ...good, agentResult: "done" }), /agentResult/);
  });

  test("a warning over its limit in bytes is refused", () => {
    refused(bytes({ ...good, warnings: ["日".repeat(LIMITS.resultTextBytes / 2)] }), /warnings/);
  });

  test("too many warnings are refused", () => {
    refused(bytes({ ...good, warnings: Array(LIMITS.resultWarnings + 1).fill("w") }), /warnings/);
  });

  test("a truncated name that is not a result file is refused", () => {
    refused(bytes({ ...good, truncated: ["/etc/passwd"] }), /truncated/);
  });

  test("an exit code out of range is refused", () => {
    refused(bytes({ ...good, agentExitCode: 256 }), /agentExitCode/);
    refused(bytes({ ...good, agentExitCode: 1.5 }), /agentExitCode/);
  });

  test("an errorCode beside the error is taken, and one that is not a code is refused", () => {
    const failed = { ...good, error: "git failed to clone", errorCode: "GIT_FAILED" };
    assert.deepEqual(parseResult(bytes(failed)), failed);
    refused(bytes({ ...failed, errorCode: "git failed" }), /errorCode: not an error code/);
    refused(bytes({ ...failed, errorCode: "A".repeat(65) }), /errorCode/);
  });

  test("bytes that are not UTF-8 are refused", () => {
    refused(Buffer.from('{"agent":"\xff"}', "latin1"), /not UTF-8/);
  });

  test("hostile key names come out cleaned in the error", () => {
    const hostile = bytes({ ...good, "\x1b]0;pwned\x07\u202E\r\nwarden: ok": 1 });
    assert.throws(
      () => parseResult(hostile),
      (error: unknown) => {
        assert.ok(error instanceof BadResultsError);
        // eslint-disable-next-line no-control-regex -- the point is that none is left.
        assert.doesNotMatch(error.message, /[\x00-\x1f\x7f-\x9f\u202E\n]/);
        return true;
      },
    );
  });

  test("a hostile text inside a nested key comes out cleaned in the error", () => {
    const hostile = bytes({ ...good, truncated: ["\x1b[31mred"] });
    assert.throws(
      () => parseResult(hostile),
      (error: unknown) => error instanceof BadResultsError && !error.message.includes("\x1b"),
    );
  });
});

describe("formatResult", () => {
  test("refuses a result that would be refused on the host", () => {
    assert.throws(() => formatResult({ ...good, head: "nope" }), BadResultsError);
  });

  test("refuses a result that comes out over 1 MiB", () => {
    const warnings = Array<string>(LIMITS.resultWarnings).fill("w".repeat(LIMITS.resultTextBytes));
    assert.throws(() => formatResult({ ...good, warnings }), /over/);
  });

  test("ends result.json with a newline", () => {
    assert.equal(formatResult(good).at(-1), 0x0a);
  });
});

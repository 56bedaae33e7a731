// The diff's light colouring: it only splits a line into pieces, so whatever a sandbox wrote,
// the pieces put together give the line back, and each kind is found where a reader expects.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { highlightCode, MAX_COLOURED_LINE } from "../../src/web/page/highlightCode.js";

const kinds = (line: string): string[] =>
  highlightCode(line)
    .filter((token) => token.kind !== "plain")
    .map((token) => `${token.kind}:${token.text}`);

test("the pieces of any line, joined, are the line", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 300 }), (line) => {
      assert.equal(
        highlightCode(line)
          .map((token) => token.text)
          .join(""),
        line,
      );
    }),
    { numRuns: 2_000 },
  );
});

test("keywords, strings, numbers and comments are found; a word that is no keyword stays plain", () => {
  assert.deepEqual(kinds('const shown = "a \\" b" + 42; // done'), [
    "keyword:const",
    'string:"a \\" b"',
    "number:42",
    "comment:// done",
  ]);
  assert.deepEqual(kinds("def f(x): return 'y'  # why"), [
    "keyword:def",
    "keyword:return",
    "string:'y'",
    "comment:# why",
  ]);
  assert.deepEqual(kinds("constant returned"), []);
});

test("an apostrophe in a word, a # inside a word and Rust's attribute are not mistaken", () => {
  assert.deepEqual(kinds("don't stop"), []);
  assert.deepEqual(kinds("a#b"), []);
  assert.deepEqual(kinds("#[derive(Debug)]"), []);
});

test("a line past the length that is coloured is one plain piece", () => {
  const long = "const x = 1; ".repeat(Math.ceil(MAX_COLOURED_LINE / 13) + 1);
  assert.deepEqual(highlightCode(long), [{ kind: "plain", text: long }]);
});

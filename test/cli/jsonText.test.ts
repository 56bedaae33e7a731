// --json output: every value parses back to what JSON.stringify's output parses to, and none of
// the characters a terminal could act on (C1 controls, bidi controls, U+2028, U+2029) is raw.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import fc from "fast-check";
import { jsonText } from "../../src/cli/jsonText.js";

/** What must never be raw in --json output; JSON.stringify itself escapes C0 controls. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u001f\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** Text that is mostly the characters at issue, with a backslash and a quote among them. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      "\\",
      '"',
      "u",
      "0",
      "\u0085",
      "\u009b",
      "\u061c",
      "\u200e",
      "\u200f",
      "\u202a",
      "\u202e",
      "\u2066",
      "\u2069",
      "\u2028",
      "\u2029",
      "\u001b",
    ),
    fc.constantFrom("a", "é", "✓", "🦀", "\ud800"),
    fc.string({ unit: "binary", maxLength: 1 }),
  ),
});

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileText,
    fc.string({ unit: "binary" }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value")),
    fc.dictionary(hostileText, tie("value")),
  ),
})).value;

test("--json text parses back to the value and holds no terminal-active character raw", () => {
  fc.assert(
    fc.property(jsonValue, (value) => {
      const text = jsonText(value);
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
      assert.doesNotMatch(text, RAW);
      assert.equal(text.includes("\n"), false);
    }),
    { numRuns: 2000 },
  );
});

test("each terminal-active character is written as its own \\u escape", () => {
  assert.equal(jsonText("\u0085"), '"\\u0085"');
  assert.equal(jsonText({ k: "a\u202eb" }), '{"k":"a\\u202eb"}');
  assert.equal(jsonText(["\u2028\u2029"]), '["\\u2028\\u2029"]');
  // A backslash before one stays an escaped backslash of its own.
  assert.equal(jsonText("\\\u009b"), '"\\\\\\u009b"');
  assert.equal(JSON.parse(jsonText("\\\u009b")), "\\\u009b");
});

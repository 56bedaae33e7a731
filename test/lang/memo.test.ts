import { strict as assert } from "node:assert";
import { test } from "node:test";
import { memo } from "../../src/lang/index.js";

test("a memo makes its value on the first call alone and hands back the same value after", () => {
  let made = 0;
  const value = memo(() => {
    made++;
    return { made };
  });
  assert.equal(made, 0, "nothing is made before the first call");
  const first = value();
  assert.equal(value(), first);
  assert.equal(made, 1);
});

test("a memo whose value is undefined is still made once", () => {
  let made = 0;
  const value = memo(() => {
    made++;
    return undefined;
  });
  value();
  value();
  assert.equal(made, 1);
});

import { strict as assert } from "node:assert";
import { test } from "node:test";
import { randomHex } from "../../src/lang/index.js";

test("random hex has two lowercase hex digits per byte asked for", () => {
  for (const bytes of [1, 6, 16, 64]) {
    const text = randomHex(bytes);
    assert.match(text, /^[0-9a-f]+$/);
    assert.equal(text.length, 2 * bytes);
  }
  assert.equal(randomHex(0), "");
});

test("ten thousand markers of sixteen random bytes are all different", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) seen.add(randomHex(16));
  assert.equal(seen.size, 10_000);
});

test("every hex digit turns up in every place of a marker", () => {
  // 2,000 draws of 32 places: a digit missing from one place is about 2000 * 32 * 16 * (15/16)^2000
  // likely, far below once in the universe's age; a generator stuck on some bits fails it.
  const digits = Array.from({ length: 32 }, () => new Set<string>());
  for (let i = 0; i < 2_000; i++) {
    const marker = randomHex(16);
    for (let place = 0; place < marker.length; place++) digits[place]?.add(marker.charAt(place));
  }
  for (const [place, seen] of digits.entries()) assert.equal(seen.size, 16, `place ${place}`);
});

// Shown ids: the shortest prefix unique in the store, never under 8 characters, so that tasks
// made within the same second never show the same id and every shown id resolves back.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import fc from "fast-check";
import { STORE_LIMITS } from "../../src/store/index.js";
import { shortIds, uniquePrefix } from "../../src/store/shortIds.js";
import { IdGenerator } from "../../src/store/taskId.js";
import { tempStore } from "./helpers.js";

const FLOOR = STORE_LIMITS.shownIdChars;
const SECOND_START = 1_800_000_000_000;

/** Ids made within about two seconds, with random parts from a few characters so they share long prefixes. */
const closeIds = fc.uniqueArray(
  fc
    .tuple(
      fc.integer({ min: 0, max: 2000 }),
      fc.array(fc.constantFrom("0", "1", "z"), { minLength: 16, maxLength: 16 }),
    )
    .map(
      ([offset, random]) =>
        new IdGenerator(() => SECOND_START + offset).next().slice(0, 10) + random.join(""),
    ),
  { minLength: 1, maxLength: 60 },
);

test("every shown id is the shortest prefix of at least 8 characters that no other id shares", () => {
  fc.assert(
    fc.property(closeIds, (all) => {
      const shown = shortIds(all, all, FLOOR);
      for (const id of all) {
        const short = shown.get(id) ?? "";
        assert.ok(id.startsWith(short), `${short} is a prefix of ${id}`);
        assert.ok(short.length >= FLOOR && short.length <= id.length);
        const sharing = all.filter((other) => other !== id && other.startsWith(short));
        assert.deepEqual(sharing, [], `${short} is shared`);
        if (short.length > FLOOR) {
          const shorter = short.slice(0, -1);
          assert.ok(
            all.some((other) => other !== id && other.startsWith(shorter)),
            `${shorter} would have been unique already`,
          );
        }
        assert.equal(uniquePrefix(id, all, FLOOR), short);
      }
      assert.equal(new Set(shown.values()).size, all.length);
    }),
    { numRuns: 300 },
  );
});

test("an id with no close neighbour is shown with exactly 8 characters", () => {
  const old = new IdGenerator(() => SECOND_START - 86_400_000).next();
  const recent = new IdGenerator(() => SECOND_START).next();
  assert.equal(uniquePrefix(old, [old, recent], FLOOR), old.slice(0, FLOOR));
  assert.equal(uniquePrefix(recent, [recent], FLOOR), recent.slice(0, FLOOR));
});

test("tasks created in the same second each show a distinct id that resolves back to them", async () => {
  // Each handle is what one `warden run` process has: its own generator, the same second.
  const store = await tempStore({ now: () => SECOND_START });
  try {
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const handle = await store.open({ now: () => SECOND_START + i * 70 });
      made.push((await handle.create({ prompt: `task ${i}` })).id);
    }
    // One process making several in the same millisecond: ids differ only at their end.
    for (let i = 0; i < 12; i++)
      made.push((await store.tasks.create({ prompt: `same ms ${i}` })).id);
    assert.equal(new Set(made.map((id) => id.slice(0, FLOOR))).size, 1, "a fixed cut collides");
    const shown = await store.tasks.shortIds(made);
    assert.equal(new Set(shown.values()).size, made.length);
    for (const id of made) {
      const short = shown.get(id) ?? "";
      assert.ok(short.length >= FLOOR);
      assert.equal(await store.tasks.resolve(short), id);
      assert.equal(await store.tasks.shortId(id), short);
    }
  } finally {
    await store.cleanup();
  }
});

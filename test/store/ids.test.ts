// Task ids: lowercase ULIDs that sort by creation time; a unique prefix of 4 or more resolves.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { TASK_ID } from "../../src/protocol/index.js";
import { IdGenerator, timeOfId } from "../../src/store/taskId.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

test("an id is a lowercase ULID that carries its creation time", () => {
  const now = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
  const id = new IdGenerator(() => now).next();
  assert.match(id, TASK_ID);
  assert.equal(id.length, 26);
  assert.equal(timeOfId(id), now);
});

test("ids made in the same millisecond, or after the clock stepped back, still increase", () => {
  let clock = 1_800_000_000_000;
  const ids = new IdGenerator(() => clock);
  const made: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    if (i === 5000) clock -= 10_000; // NTP steps the clock back.
    made.push(ids.next());
  }
  for (let i = 1; i < made.length; i++) assert.ok((made[i - 1] ?? "") < (made[i] ?? ""), `id ${i}`);
  assert.equal(new Set(made).size, made.length);
});

test("ids of two generators differ even in the same millisecond", () => {
  const a = new IdGenerator(() => 1_800_000_000_000).next();
  const b = new IdGenerator(() => 1_800_000_000_000).next();
  assert.notEqual(a, b);
  assert.equal(a.slice(0, 10), b.slice(0, 10));
});

test("a whole id, an upper-case one, and a unique prefix of 4 or more resolve", async () => {
  const { id } = await store.tasks.create(
    { prompt: "find me" },
    { id: "7zzzzzzzzzzzzzzzzzzzzzzzzz" },
  );
  assert.equal(await store.tasks.resolve(id), id);
  assert.equal(await store.tasks.resolve(id.toUpperCase()), id);
  assert.equal(await store.tasks.resolve("7zzz"), id);
  assert.equal((await store.tasks.get("7zzzz")).id, id);
});

test("an ambiguous prefix is a usage error naming the candidates", async () => {
  const a = await store.tasks.create({ prompt: "one" }, { id: "7yyyy0000000000000000000aa" });
  const b = await store.tasks.create({ prompt: "two" }, { id: "7yyyy0000000000000000000bb" });
  await assert.rejects(store.tasks.get("7yyyy"), (e: unknown) => {
    const error = e as { code: string; exitClass: string; candidates: string[]; message: string };
    assert.equal(error.code, "AMBIGUOUS_ID");
    assert.equal(error.exitClass, "usage");
    assert.deepEqual(error.candidates, [a.id, b.id]);
    assert.match(error.message, new RegExp(`${a.id}, ${b.id}`));
    return true;
  });
  assert.equal(await store.tasks.resolve("7yyyy0000000000000000000a"), a.id);
});

test("a short prefix, a foreign character or an unknown id is refused by name", async () => {
  await assert.rejects(store.tasks.get("7zz"), code("BAD_TASK_ID"));
  await assert.rejects(store.tasks.get("7zzu"), code("BAD_TASK_ID"));
  await assert.rejects(store.tasks.get("../etc"), code("BAD_TASK_ID"));
  await assert.rejects(store.tasks.get("8zzzzzzzzzzzzzzzzzzzzzzzzz"), code("BAD_TASK_ID"));
  await assert.rejects(store.tasks.get("0000"), code("TASK_NOT_FOUND"));
  await assert.rejects(store.tasks.get("00000000000000000000000000"), code("TASK_NOT_FOUND"));
  await assert.rejects(
    store.tasks.create({ prompt: "x" }, { id: "NOT-AN-ID" }),
    code("BAD_TASK_ID"),
  );
});

test("@last is the newest task, @last-N the one N before it, in any case", async () => {
  const own = await tempStore();
  try {
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push((await own.tasks.create({ prompt: `t${i}` })).id);
    assert.equal(await own.tasks.resolve("@last"), made[3]);
    assert.equal(await own.tasks.resolve("@last-0"), made[3]);
    assert.equal(await own.tasks.resolve("@last-2"), made[1]);
    assert.equal(await own.tasks.resolve(" @LAST-3 "), made[0]);
    assert.equal((await own.tasks.get("@last-1")).id, made[2]);
  } finally {
    await own.cleanup();
  }
});

test("@last-N past the oldest task, or @last in an empty store, is refused with a hint", async () => {
  const own = await tempStore();
  try {
    const noRecent = (count: string) => (e: unknown) => {
      const error = e as { code: string; exitClass: string; message: string; hint?: string };
      assert.equal(error.code, "NO_RECENT_TASK");
      assert.equal(error.exitClass, "usage");
      assert.match(error.message, new RegExp(`has ${count}$`));
      assert.match(error.hint ?? "", /@last-N/);
      return true;
    };
    await assert.rejects(own.tasks.resolve("@last"), noRecent("no tasks"));
    await own.tasks.create({ prompt: "one" });
    await own.tasks.create({ prompt: "two" });
    await assert.rejects(own.tasks.resolve("@last-2"), noRecent("2 tasks"));
    await assert.rejects(own.tasks.get("@last-999999999999999"), noRecent("2 tasks"));
    for (const ref of ["@first", "@last-", "@last-x", "@last+1", "@last-1000000000000000"]) {
      await assert.rejects(own.tasks.resolve(ref), code("BAD_TASK_ID"), ref);
    }
  } finally {
    await own.cleanup();
  }
});

// Creating a task: the spec is checked, written once, and the task reads `created`.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { STORE_LIMITS } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

test("a task created without being started is created, with its spec as given", async () => {
  const settings = { agent: "command", command: ["claude", "-p"], nested: { a: [1, 2] } };
  const summary = await store.tasks.create({
    prompt: "\n  Fix the \u001b[31mbug\u001b[0m\nin detail",
    repo: "/src/project",
    base: "0123456789abcdef0123456789abcdef01234567",
    settings,
    labels: { team: "core", "ci/run": "42" },
  });
  assert.equal(summary.state, "created");
  assert.equal(summary.parent, null);
  assert.equal(summary.root, summary.id);
  assert.equal(summary.hop, 0);
  // The title is the first line, cleaned of control characters, for lists.
  assert.equal(summary.title, "Fix the ?[31mbug?[0m");
  const details = await store.tasks.get(summary.id);
  assert.deepEqual(details.spec.settings, settings);
  assert.equal(details.spec.prompt, "\n  Fix the \u001b[31mbug\u001b[0m\nin detail");
  assert.equal(details.spec.repo, "/src/project");
  assert.deepEqual(details.labels, { team: "core", "ci/run": "42" });
  assert.deepEqual(details.messages, { pending: 0, in_flight: 0, delivered: 0 });
});

test("the prompt is UTF-8 text, not empty, at most 1 MiB", async () => {
  await assert.rejects(store.tasks.create({ prompt: "" }), code("PROMPT_EMPTY"));
  await assert.rejects(store.tasks.create({ prompt: " \n\t " }), code("PROMPT_EMPTY"));
  await assert.rejects(store.tasks.create({ prompt: "a \udc00 b" }), code("PROMPT_NOT_TEXT"));
  const max = STORE_LIMITS.promptBytes;
  await assert.rejects(store.tasks.create({ prompt: "p".repeat(max + 1) }), code("PROMPT_TOO_BIG"));
  const big = await store.tasks.create({ prompt: "p".repeat(max) });
  assert.equal((await store.tasks.get(big.id)).spec.promptBytes, max);
});

test("unknown fields, bad labels and oversized settings are refused as a bad spec", async () => {
  const bad = [
    { prompt: "x", colour: "blue" },
    { prompt: "x", labels: { "bad key!": "v" } },
    { prompt: "x", labels: { k: "line\nbreak" } },
    { prompt: "x", repo: "" },
    { prompt: "x", settings: { blob: "b".repeat(STORE_LIMITS.settingsBytes) } },
    { prompt: "x", settings: ["not", "an", "object"] },
    { prompt: "x", parent: "not-an-id" },
    { prompt: "x", hop: -1 },
    { prompt: 42 },
  ];
  for (const spec of bad) {
    await assert.rejects(
      store.tasks.create(spec as never),
      code("BAD_SPEC"),
      JSON.stringify(spec).slice(0, 80),
    );
  }
});

test("a parent that does not exist is refused by name", async () => {
  await assert.rejects(
    store.tasks.create({ prompt: "orphan", parent: "00000000000000000000000000" }),
    (e: unknown) => {
      assert.equal((e as { code?: string }).code, "TASK_NOT_FOUND");
      assert.match((e as Error).message, /parent task/);
      return true;
    },
  );
});

test("list shows every task oldest first, and filters by state and parent", async () => {
  const fresh = await tempStore();
  try {
    const a = await fresh.tasks.create({ prompt: "a" });
    const b = await fresh.tasks.create({ prompt: "b", parent: a.id });
    const c = await fresh.tasks.create({ prompt: "c" });
    const run = await fresh.tasks.attach(c.id);
    assert.deepEqual(
      (await fresh.tasks.list()).map((t) => [t.id, t.state]),
      [
        [a.id, "created"],
        [b.id, "created"],
        [c.id, "running"],
      ],
    );
    assert.deepEqual(
      (await fresh.tasks.list({ states: ["running"] })).map((t) => t.id),
      [c.id],
    );
    assert.deepEqual(
      (await fresh.tasks.list({ parent: null })).map((t) => t.id),
      [a.id, c.id],
    );
    assert.deepEqual(
      (await fresh.tasks.list({ parent: a.id })).map((t) => t.id),
      [b.id],
    );
    const summary = "s".repeat(STORE_LIMITS.summaryBytes + 10);
    await run.finish({ state: "succeeded", summary });
    const done = (await fresh.tasks.list({ states: ["succeeded"] }))[0];
    assert.ok(done);
    assert.equal(done.summary?.length, STORE_LIMITS.summaryBytes);
    assert.equal(done.summaryCut, true);
  } finally {
    await fresh.cleanup();
  }
});

test("a terminal state is one the store documents, and only failed carries a bound", async () => {
  const { id } = await store.tasks.create({ prompt: "end well" });
  const run = await store.tasks.attach(id);
  await assert.rejects(run.finish({ state: "done" as never }), code("BAD_TERMINAL"));
  await assert.rejects(
    run.finish({ state: "succeeded", stoppedBy: "budget" }),
    code("BAD_TERMINAL"),
  );
  const end = await run.finish({ state: "failed", stoppedBy: "budget", details: { costUSD: 3.5 } });
  assert.deepEqual([end.state, end.stoppedBy, end.details], ["failed", "budget", { costUSD: 3.5 }]);
  await assert.rejects(run.finish({ state: "succeeded" }), code("ATTACHMENT_CLOSED"));
  await assert.rejects(store.tasks.attach(id), code("TASK_FINISHED"));
});

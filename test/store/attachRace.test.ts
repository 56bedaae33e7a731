// Execution belongs to whoever holds attach.lock: two processes that race to attach never
// both win, and the loser learns who runs the task.
import { strict as assert } from "node:assert";
import { hostname } from "node:os";
import { after, before, test } from "node:test";
import { Fixture, tempStore, type TempStore } from "./helpers.js";

const RACES = 200;
let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

test(`two processes race to attach ${RACES} times and exactly one wins each time`, async () => {
  const ids: string[] = [];
  for (let i = 0; i < RACES; i++) ids.push((await store.tasks.create({ prompt: `race ${i}` })).id);
  const racers = [
    new Fixture("attacher", [store.dataDir]),
    new Fixture("attacher", [store.dataDir]),
  ];
  try {
    for (const r of racers) assert.equal(await r.line(), "ready");
    const wins = [0, 0];
    for (const id of ids) {
      for (const r of racers) r.send(`attach ${id}`);
      const answers = await Promise.all(racers.map((r) => r.line()));
      const winners = answers.flatMap((a, i) => (a === `won ${id}` ? [i] : []));
      assert.equal(winners.length, 1, `race on ${id}: ${answers.join(" / ")}`);
      const winner = winners[0] ?? 0;
      const loser = 1 - winner;
      wins[winner] = (wins[winner] ?? 0) + 1;
      const winnerPid = racers[winner]?.child.pid ?? 0;
      assert.match(
        answers[loser] ?? "",
        new RegExp(
          `^lost ${id} ALREADY_ATTACHED task ${id} is running in pid ${winnerPid} on ${hostname()}$`,
        ),
      );
      racers[winner]?.send(`release ${id}`);
      assert.equal(await racers[winner]?.line(), `released ${id}`);
    }
    // Both processes won some races, so the test did race rather than always run one first.
    assert.ok((wins[0] ?? 0) > 0 && (wins[1] ?? 0) > 0, `wins were ${wins.join(" and ")}`);
  } finally {
    for (const r of racers) r.kill();
  }
  // Every task was attached once and released: none is running, each reads interrupted.
  const states = new Set((await store.tasks.list()).map((t) => t.state));
  assert.deepEqual([...states], ["interrupted"]);
});

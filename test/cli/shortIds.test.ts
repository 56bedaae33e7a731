// Ids as a person reads and types them: tasks made within the same second are each shown in `ls`
// and in hints by a prefix no other task shares, which `show` resolves back to that task, and
// `@last` names the newest task. Runs the built CLI: `node dist/cli/warden.cjs`.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { STORE_LIMITS, Tasks } from "../../src/store/index.js";
import { timeOfId } from "../../src/store/taskId.js";
import { describeCli } from "../support/cliSuite.js";
import { idOf, runCli } from "../e2e/fixtures.js";

const FLOOR = STORE_LIMITS.shownIdChars;

/** The id `show` resolves `ref` to. */
async function shownTask(dataDir: string, ref: string): Promise<{ id: string; title: string }> {
  const shown = await runCli(dataDir, ["show", ref, "--json"]);
  assert.equal(shown.code, 0, shown.stderr);
  return JSON.parse(shown.stdout) as { id: string; title: string };
}

describeCli("short ids", (ws) => {
  test("tasks made in the same second show distinct ids in ls and hints, and each resolves back", async () => {
    // Four `warden create` at once, as a loop in a shell makes them, with a deadline that
    // passes soon so that they can be made to fail and print their hints.
    const created = await Promise.all(
      ["a", "b", "c", "d"].map((name) =>
        runCli(ws.dataDir, [
          "create",
          "--repo",
          ws.repo,
          "--prompt",
          `cli ${name}`,
          "--deadline",
          "1s",
          "--",
          "true",
        ]),
      ),
    );
    const cliIds = created.map(idOf);
    // Four more in the very millisecond of the first, as other processes could make them: these
    // share at least 10 characters with it, so a fixed 8-character cut cannot tell them apart.
    const sameTime = await Tasks.open({
      dataDir: ws.dataDir,
      now: () => timeOfId(cliIds[0] ?? ""),
    });
    for (const name of ["e", "f", "g", "h"]) await sameTime.create({ prompt: `store ${name}` });

    const ls = await runCli(ws.dataDir, ["ls"]);
    assert.equal(ls.code, 0, ls.stderr);
    // A row is the task's shown id first, and somewhere after it the title this test gave it.
    const rows = ls.stdout.split("\n").flatMap((line) => {
      const title = /\b(?:cli|store) ([a-h])\b/.exec(line)?.[1];
      return title === undefined ? [] : [{ short: line.split(/\s+/)[0] ?? "", title }];
    });
    assert.equal(rows.length, 8, ls.stdout);
    assert.equal(new Set(rows.map((row) => row.short)).size, rows.length, ls.stdout);
    for (const row of rows) {
      assert.ok(row.short.length >= FLOOR, row.short);
      assert.equal((await shownTask(ws.dataDir, row.short)).title.split(" ")[1], row.title);
    }

    await sleep(1100);
    for (const id of cliIds) {
      await runCli(ws.dataDir, ["start", id]);
      const show = await runCli(ws.dataDir, ["show", id]);
      const hint = /see what happened: warden logs (\S+)/.exec(show.stdout);
      assert.ok(hint !== null, show.stdout + show.stderr);
      const short = hint[1] ?? "";
      assert.ok(short.length >= FLOOR && id.startsWith(short), short);
      assert.equal((await shownTask(ws.dataDir, short)).id, id);
    }
  });

  test("@last and @last-N name the newest tasks wherever an id goes", async () => {
    const all = (await (await Tasks.open({ dataDir: ws.dataDir })).list()).map((t) => t.id);
    const newest = all.at(-1) ?? "";
    assert.equal((await shownTask(ws.dataDir, "@last")).id, newest);
    assert.equal((await shownTask(ws.dataDir, "@last-2")).id, all.at(-3));
    const text = await runCli(ws.dataDir, ["show", "@last"]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^id: +${newest}$`, "m"));
    const past = await runCli(ws.dataDir, ["show", `@last-${all.length}`]);
    assert.equal(past.code, 2);
    assert.match(past.stderr, /^warden: .*has 8 tasks\nhint: .*@last-N.*\n$/);
  });
});

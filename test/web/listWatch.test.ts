// The server's watch of the task list, on a real directory with real inotify: a task made after
// the start is told even when it finished before its own directory could be watched, and the
// tasks there at the start are not news.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskPaths } from "../../src/store/index.js";
import { ListWatch } from "../../src/web/listWatch.js";

let dataDir: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "warden-listwatch-"));
});

after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Makes a task's directory, finished or not, with synchronous calls: no notice runs between. */
function makeTask(id: string, finished: boolean): void {
  const paths = new TaskPaths(dataDir, id);
  mkdirSync(paths.dir, { recursive: true });
  if (finished) writeFileSync(paths.terminal, "{}");
}

/** Every set of changed tasks the watch tells within `ms`, joined. */
async function toldWithin(watchFor: (told: Set<string>) => ListWatch, ms: number) {
  const told = new Set<string>();
  const watch = watchFor(told);
  try {
    await sleep(ms);
  } finally {
    watch.close();
  }
  return told;
}

test("a task made and finished before its directory could be watched is still told", async () => {
  makeTask("before0", false);
  const told = await toldWithin((told) => {
    const watch = new ListWatch(dataDir, (ids) => {
      for (const id of ids) told.add(id);
    });
    // Both happen before the watch's first notice is read: when it is, the task has ended.
    makeTask("quick1", true);
    return watch;
  }, 500);
  assert.deepEqual([...told], ["quick1"]);
});

test("a task made later and finished after its directory is watched is told, the old ones not", async () => {
  const told = await toldWithin((told) => {
    const watch = new ListWatch(dataDir, (ids) => {
      for (const id of ids) told.add(id);
    });
    setTimeout(() => {
      makeTask("later2", false);
    }, 100);
    setTimeout(() => {
      writeFileSync(new TaskPaths(dataDir, "later2").terminal, "{}");
    }, 300);
    return watch;
  }, 600);
  assert.deepEqual([...told], ["later2"]);
});

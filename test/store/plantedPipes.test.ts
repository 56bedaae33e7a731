// A named pipe planted where a task keeps a record of its own (spec.json, inbox.json): the store
// reads its records with blocking calls (src/store/noFollow.ts), so an open that waited for a
// writer would stop the whole process. It must be refused at once as damage. Each read runs in a
// child process with a timeout, so that a read that waits fails this test instead of hanging it.
import { strict as assert } from "node:assert";
import { execFile, execFileSync } from "node:child_process";
import { closeSync, constants, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL, fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempStore, type TempStore } from "./helpers.js";

const execFileAsync = promisify(execFile);
const STORE = pathToFileURL(fileURLToPath(new URL("../../src/store/index.ts", import.meta.url)));

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

/** What `warden show` would get of the task: the error's code, read by a child process. */
async function codeOfGet(id: string): Promise<string> {
  const script = `
    import { Tasks } from ${JSON.stringify(STORE.href)};
    const tasks = await Tasks.open({ dataDir: ${JSON.stringify(store.dataDir)} });
    try { await tasks.get(${JSON.stringify(id)}); console.log("read"); }
    catch (error) { console.log(error.code); }`;
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { timeout: 20_000 },
  );
  return stdout.trim();
}

for (const record of ["spec.json", "inbox.json"]) {
  test(`a named pipe planted as a task's ${record} is refused at once as damage`, async () => {
    const { id } = await store.tasks.create({ prompt: "keep my records plain" });
    assert.equal(await codeOfGet(id), "read");
    const path = join(store.dataDir, "tasks", id, record);
    rmSync(path, { force: true });
    execFileSync("mkfifo", [path]);
    assert.equal(await codeOfGet(id), "STORE_CORRUPT");
    // With a writer that holds it open and writes nothing, a read would wait or fail with EAGAIN.
    const writer = openSync(path, constants.O_RDWR);
    try {
      assert.equal(await codeOfGet(id), "STORE_CORRUPT");
    } finally {
      closeSync(writer);
    }
  });
}

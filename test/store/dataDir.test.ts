// The data directory: --data-dir, then WARDEN_DATA_DIR, then XDG_DATA_HOME, then home; private
// to its owner.
import { strict as assert } from "node:assert";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { resolveDataDir, Tasks } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

test("the data dir comes from the option, then WARDEN_DATA_DIR, then XDG_DATA_HOME, then home", () => {
  const env = { WARDEN_DATA_DIR: "/env/w", XDG_DATA_HOME: "/xdg", HOME: "/home/u" };
  assert.deepEqual(resolveDataDir("/opt/w", env), { path: "/opt/w", source: "option" });
  assert.deepEqual(resolveDataDir(undefined, env), { path: "/env/w", source: "WARDEN_DATA_DIR" });
  assert.deepEqual(resolveDataDir(undefined, { ...env, WARDEN_DATA_DIR: "  " }), {
    path: "/xdg/warden",
    source: "XDG_DATA_HOME",
  });
  assert.deepEqual(resolveDataDir(undefined, { HOME: "/home/u", XDG_DATA_HOME: "relative" }), {
    path: "/home/u/.local/share/warden",
    source: "home",
  });
  assert.deepEqual(
    resolveDataDir(undefined, {}, () => "/from/os"),
    {
      path: "/from/os/.local/share/warden",
      source: "home",
    },
  );
  assert.equal(resolveDataDir("rel", {}).path, join(process.cwd(), "rel"));
});

test("directories are 0700 and files 0600", async () => {
  const nested = join(store.dataDir, "deeper", "data");
  const tasks = await Tasks.open({ dataDir: nested, env: {} });
  const { id } = await tasks.create({ prompt: "private" });
  const run = await tasks.attach(id);
  run.appendEvent("e");
  await tasks.send(id, "m");
  await run.finish({ state: "succeeded" });
  const mode = (p: string) => statSync(p).mode & 0o777;
  for (const dir of ["", "tasks", "tmp", "waits", `tasks/${id}`, `tasks/${id}/results`]) {
    assert.equal(mode(join(nested, dir)), 0o700, dir);
  }
  for (const file of [
    "spec.json",
    "prompt.md",
    "attach.lock",
    "events.jsonl",
    "inbox.json",
    "inbox.lock",
    "terminal.json",
  ]) {
    assert.equal(mode(join(nested, "tasks", id, file)), 0o600, file);
  }
});

test("a data dir that cannot be made is a DATA_DIR error", async () => {
  const file = join(store.dataDir, "a-file");
  writeFileSync(file, "");
  await assert.rejects(
    Tasks.open({ dataDir: join(file, "data"), env: {} }),
    (e: unknown) => (e as { code?: string }).code === "DATA_DIR",
  );
});

// removeLater: a directory leaves its place at once and is deleted by a detached `rm` that the
// process which asked for it does not wait for; gc finishes a removal nobody finished.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { removeLater } from "../../src/host/removeLater.js";
import { removalPath } from "../../src/store/index.js";
import { tempStore, type TempStore } from "../store/helpers.js";

const REMOVE_LATER = fileURLToPath(new URL("../../src/host/removeLater.ts", import.meta.url));

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

let made = 0;
/** A directory of `files` files in two levels, under the store's task directory. */
function fullDir(files: number): string {
  made++;
  const dir = join(store.dataDir, "tasks", `dir-${made}`);
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${i % 10}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}`), "x".repeat(100));
  }
  return dir;
}

function removals(): string[] {
  return readdirSync(join(store.dataDir, "tmp")).filter((name) => name.startsWith("rm."));
}

/** Waits until the staging directory holds no removal, or fails after `ms`. */
async function removalsFinish(ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (removals().length > 0) {
    if (Date.now() > until) assert.fail(`removals still there: ${removals().join(", ")}`);
    await sleep(20);
  }
}

test("a removal is named in the staging directory, where gc finishes it", () => {
  assert.equal(
    removalPath("/data", "01abc.workspace", "00ff"),
    "/data/tmp/rm.01abc.workspace.00ff",
  );
});

test("a directory removed later is gone from its place at once, and deleted in the background", async () => {
  const dir = fullDir(300);
  await removeLater(store.dataDir, dir, "big.workspace");
  assert.equal(existsSync(dir), false);
  await removalsFinish();
});

test("the process that removes later exits before the deletion ends, which goes on without it", async () => {
  // An `rm` first on PATH that waits for a file before it does the real deletion, so the
  // deletion cannot have ended when the process that asked for it exits.
  const bin = join(store.dataDir, "slow-bin");
  const release = join(store.dataDir, "release");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "rm"),
    `#!/bin/sh\nwhile [ ! -e '${release}' ]; do sleep 0.02; done\nexec /bin/rm "$@"\n`,
  );
  chmodSync(join(bin, "rm"), 0o755);
  const dir = fullDir(50);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { removeLater } = await import(${JSON.stringify(REMOVE_LATER)});
       await removeLater(${JSON.stringify(store.dataDir)}, ${JSON.stringify(dir)}, "slow");
       process.stdout.write("moved\\n");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` } },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  // A process that waited for its deletion would never exit here: the release comes after.
  const exited = await Promise.race([once(child, "exit"), sleep(30_000, "still running")]);
  if (exited === "still running") {
    child.kill("SIGKILL");
    writeFileSync(release, "");
    assert.fail("the process waited for the deletion it left to the background");
  }
  assert.deepEqual(exited, [0, null]);
  assert.equal(out, "moved\n");
  assert.equal(existsSync(dir), false);
  assert.equal(removals().length, 1, "the deletion waits for its release, after the exit");
  writeFileSync(release, "");
  await removalsFinish();
});

test("a link in the place of a directory is removed as the link, never what it points at", async () => {
  const target = fullDir(5);
  const link = join(store.dataDir, "tasks", "planted");
  symlinkSync(target, link);
  await removeLater(store.dataDir, link, "planted.workspace");
  await removalsFinish();
  assert.equal(existsSync(link), false);
  assert.equal(readFileSync(join(target, "d1", "f1"), "utf8"), "x".repeat(100));
});

test("without a staging directory to move it to, the directory is deleted at once", async () => {
  const dir = fullDir(20);
  await removeLater(join(store.dataDir, "no-such-data-dir"), dir, "elsewhere");
  assert.equal(existsSync(dir), false);
  assert.deepEqual(removals(), []);
});

test("gc finishes a removal that a crash left in the staging directory", async () => {
  const left = join(store.dataDir, "tmp", "rm.01crashed.workspace.abcdef");
  mkdirSync(join(left, "src"), { recursive: true });
  writeFileSync(join(left, "src", "file"), "left behind");
  const outcome = await store.tasks.gc({ olderThan: "7d" });
  assert.equal(outcome.staging, 1);
  assert.deepEqual(removals(), []);
});

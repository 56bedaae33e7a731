// The host's side of setup, against a hostile runner: the host gives setup's variables once and
// only while setup runs, refuses everything of setup once it has ended it, never keeps a snapshot
// that breaks the layout, and keeps one good snapshot per key however many tasks store it at once.
// The cache's entries are checked at each use, a damaged one is evicted, and gc removes old ones.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pack as tarPack, type Header } from "tar-stream";
import type { ChannelResponse } from "../../src/protocol/index.js";
import { SetupPhase, type SetupPhaseOptions } from "../../src/host/setupPhase.js";
import {
  fileDigest,
  globPattern,
  keyDigest,
  SETUP_CACHE_DIR,
  storeSnapshot,
  takeSnapshot,
  trimSetupCaches,
} from "../../src/host/setupCache/index.js";

type Entry = Partial<Header> & { name: string; body?: string };

async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  for (const { body, ...header } of entries) pack.entry(header, body ?? "");
  pack.finalize();
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const KEY = "a".repeat(64);

describe("the host's setup phase and its cache", () => {
  let root: string;
  let n = 0;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-setup-cache-"));
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A phase over a fresh data directory, with what it did recorded. */
  async function phase(over: Partial<SetupPhaseOptions> = {}) {
    const dataDir = join(root, `data-${++n}`);
    const taskDir = join(dataDir, "task");
    await import("node:fs/promises").then((fs) => fs.mkdir(taskDir, { recursive: true }));
    const seen = { narrowed: 0, events: [] as string[], warnings: [] as string[] };
    const gate = new SetupPhase({
      dataDir,
      taskDir,
      log: join(taskDir, "setup.log"),
      key: KEY,
      commands: 1,
      goal: false,
      timeoutSeconds: 60,
      env: { TOKEN: "secret" },
      narrow: () => {
        seen.narrowed++;
      },
      event: (type) => {
        seen.events.push(type);
      },
      progress: () => undefined,
      warn: (text) => {
        seen.warnings.push(text);
      },
      ...over,
    });
    let id = 0;
    const ask = (request: Record<string, unknown>): Promise<ChannelResponse> =>
      gate.answer({ v: 1, id: ++id, ...request } as never);
    return { dataDir, gate, seen, ask };
  }

  const end = { op: "setup.end", ok: true, timedOut: false, durationMs: 5, snapshot: true };

  test("setup's variables are given once, and nothing of setup is taken after it ended", async () => {
    const { gate, seen, ask } = await phase();
    const first = await ask({ op: "setup.start" });
    assert.ok(first.ok && first.op === "setup.start");
    assert.deepEqual(first.env, { TOKEN: "secret" });
    const again = await ask({ op: "setup.start" });
    assert.equal(again.ok, false, "the variables were given twice");
    await ask({ ...end, snapshot: false });
    assert.equal(seen.narrowed, 1);
    assert.equal(gate.open, false);
    for (const request of [
      { op: "setup.start" },
      { op: "setup.snapshot", data: "" },
      { op: "setup.output", lines: [] },
      end,
    ]) {
      const answer = await ask(request);
      assert.equal(answer.ok, false, `${request.op} was taken after setup ended`);
    }
    await gate.close();
    assert.equal(seen.narrowed, 1);
  });

  test("a hostile snapshot is refused and not kept; the task's setup still counts as done", async () => {
    const hostile: Entry[][] = [
      [{ name: "files/../escape", body: "x" }],
      [{ name: "/abs", body: "x" }],
      [{ name: "files/out", type: "symlink", linkname: "../../x" }],
      [{ name: "files/dev", type: "block-device", devmajor: 8, devminor: 0 }],
    ];
    for (const entries of hostile) {
      const { dataDir, gate, seen, ask } = await phase();
      await ask({ op: "setup.start" });
      await ask({ op: "setup.snapshot", data: (await tarOf(entries)).toString("base64") });
      const ended = await ask(end);
      assert.ok(ended.ok);
      await gate.close();
      assert.equal(gate.failure, undefined);
      assert.ok(!existsSync(join(dataDir, SETUP_CACHE_DIR, KEY)), JSON.stringify(entries));
      assert.match(seen.warnings.join("\n"), /snapshot was refused/);
    }
  });

  test("a good snapshot is kept, restored by the next task, and a changed one is evicted", async () => {
    const { dataDir, gate, seen, ask } = await phase();
    await ask({ op: "setup.start" });
    const tar = await tarOf([{ name: "files/node_modules/a.js", body: "a" }]);
    await ask({ op: "setup.snapshot", data: tar.toString("base64") });
    await ask(end);
    await gate.close();
    assert.ok(seen.events.includes("setup_cache_stored"), seen.warnings.join("\n"));
    const dest = join(dataDir, "restore.tar");
    const hit = await takeSnapshot(dataDir, KEY, dest);
    assert.equal(hit.kind, "hit");
    await rm(dest);
    // The same size, one byte of a file's contents changed: only the digest can tell.
    const changed = Buffer.from(tar);
    changed[512] = "b".charCodeAt(0);
    await writeFile(join(dataDir, SETUP_CACHE_DIR, KEY, "snapshot.tar"), changed);
    const evicted = await takeSnapshot(dataDir, KEY, dest);
    assert.equal(evicted.kind, "evicted");
    assert.ok(!existsSync(dest));
    assert.ok(!existsSync(join(dataDir, SETUP_CACHE_DIR, KEY)));
    assert.equal((await takeSnapshot(dataDir, KEY, dest)).kind, "miss");
  });

  test("the host ends setup itself when a runner never says it ended, and calls it timed out", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const { gate, seen, ask } = await phase({ timeoutSeconds: 1 });
    await ask({ op: "setup.start" });
    t.mock.timers.tick(1000 + 2 * 60_000 + 1);
    assert.equal(gate.open, false);
    assert.equal(seen.narrowed, 1);
    assert.equal(gate.failure?.code, "SETUP_TIMEOUT");
    const late = await ask({ op: "setup.start" });
    assert.equal(late.ok, false);
    await gate.close();
  });

  test("a snapshot over its bound is refused at the piece that passes it, and not kept", async () => {
    const { dataDir, gate, seen, ask } = await phase({ maxSnapshotBytes: 4096 });
    await ask({ op: "setup.start" });
    const tar = await tarOf([{ name: "files/big", body: "x".repeat(8192) }]);
    const answer = await ask({ op: "setup.snapshot", data: tar.toString("base64") });
    assert.equal(answer.ok, false);
    const ended = await ask(end);
    assert.ok(ended.ok && ended.op === "setup.end" && !ended.kept);
    await gate.close();
    assert.ok(!existsSync(join(dataDir, SETUP_CACHE_DIR, KEY)));
    assert.match(seen.warnings.join("\n"), /over 4096 bytes/);
  });

  test("two tasks storing the same key at once leave one whole entry", async () => {
    const dataDir = join(root, "race");
    await import("node:fs/promises").then((fs) => fs.mkdir(dataDir, { recursive: true }));
    const tars = await Promise.all(
      [1, 2, 3, 4].map(async (i) => {
        const path = join(dataDir, `t${i}.tar`);
        await writeFile(path, await tarOf([{ name: "files/x", body: `${i}` }]));
        return { path, digest: await fileDigest(path) };
      }),
    );
    const kept = await Promise.all(tars.map((t) => storeSnapshot(dataDir, KEY, t.path, t.digest)));
    assert.equal(kept.filter(Boolean).length, 1);
    const names = await readdir(join(dataDir, SETUP_CACHE_DIR));
    assert.deepEqual(names, [KEY], "a temporary directory was left behind");
    assert.equal((await takeSnapshot(dataDir, KEY, join(dataDir, "out.tar"))).kind, "hit");
  });

  test("gc removes a snapshot no task used for as long, and keeps a recent one", async () => {
    const dataDir = join(root, "gc");
    await import("node:fs/promises").then((fs) => fs.mkdir(dataDir, { recursive: true }));
    const old = "b".repeat(64);
    for (const key of [old, KEY]) {
      const path = join(dataDir, `${key}.tar`);
      await writeFile(path, await tarOf([{ name: "files/x", body: "x" }]));
      await storeSnapshot(dataDir, key, path, await fileDigest(path));
    }
    const longAgo = new Date(Date.now() - 10 * 24 * 3600_000);
    await utimes(join(dataDir, SETUP_CACHE_DIR, old), longAgo, longAgo);
    const outcome = await trimSetupCaches(dataDir, {
      olderThan: 7 * 24 * 3600_000,
      now: Date.now(),
    });
    assert.deepEqual(outcome.removed, [old]);
    assert.deepEqual(await readdir(join(dataDir, SETUP_CACHE_DIR)), [KEY]);
  });

  test("the key reads the lockfiles anywhere in the tree and nothing else", () => {
    const input = {
      gitDir: "/r/.git",
      base: "0".repeat(40),
      patterns: [],
      commands: ["npm ci"],
      goal: undefined,
      envNames: [],
      agent: "command",
    };
    const source = { mode: "100644", oid: "1".repeat(40), path: "src/index.ts" };
    const lock = { mode: "100644", oid: "2".repeat(40), path: "web/package-lock.json" };
    const tree = [source, lock];
    const key = keyDigest(input, tree);
    const sourceChanged = keyDigest(input, [{ ...source, oid: "3".repeat(40) }, lock]);
    assert.equal(key, sourceChanged, "a change outside the lockfiles changed the key");
    const lockChanged = keyDigest(input, [source, { ...lock, oid: "4".repeat(40) }]);
    assert.notEqual(key, lockChanged);
    assert.notEqual(key, keyDigest({ ...input, commands: ["npm install"] }, tree));
    assert.notEqual(key, keyDigest({ ...input, envNames: ["TOKEN"] }, tree));
    assert.match("a/requirements-dev.txt", globPattern("requirements*.txt"));
    assert.doesNotMatch("a/b/c.lock", globPattern("a/*.lock"));
    assert.match("a/b/c.lock", globPattern("a/**/*.lock"));
  });
});

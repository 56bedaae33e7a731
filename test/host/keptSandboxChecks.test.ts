// A sandbox check one process passed serves the next for as long as a pass is remembered, under
// the same key only, and a kept file that is not warden's own is no pass.
import { strict as assert } from "node:assert";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { checksDir, keptSandboxChecks } from "../../src/host/keptSandboxChecks.js";
import { bwrapCheckKey } from "../../src/sandbox/bwrapCheckKey.js";
import { probeBwrapHost } from "../../src/sandbox/bwrapHost.js";
import {
  sandboxBackend,
  SandboxCheckMemo,
  type CheckMemoOptions,
  type SandboxBackend,
} from "../../src/sandbox/index.js";
import { countedChecks, NEEDS_BWRAP } from "../sandbox/sandboxFixture.js";

/** A backend named bwrap whose check passes (or not) at once, under a key the test sets. */
function standIn(key: () => string | undefined, ok = true) {
  let checks = 0;
  const backend = {
    name: "bwrap",
    isolated: true,
    check: () => {
      checks++;
      return Promise.resolve(
        ok ? { ok: true, detail: "a stand-in's pass" } : { ok: false, why: "no", fix: "none" },
      );
    },
    checkKey: () => Promise.resolve(key()),
  } as unknown as SandboxBackend;
  return { backend, checks: () => checks };
}

describe("sandbox checks kept in the data directory", () => {
  let dataDir = "";
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "warden-kept-checks-"));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  /** A memo as a new process makes one, with the passes of the test's data directory. */
  const memo = (options: CheckMemoOptions = {}): SandboxCheckMemo =>
    new SandboxCheckMemo({ ...options, passes: keptSandboxChecks(dataDir) });

  test(
    "a pass one process kept serves the next, which makes no trial sandbox",
    { skip: NEEDS_BWRAP },
    async () => {
      const first = countedChecks(sandboxBackend("bwrap"));
      const made = await memo().check(first.backend);
      assert.equal(made.ok, true);
      assert.equal(first.checks(), 1);
      const file = join(checksDir(dataDir), "bwrap.json");
      assert.equal((await stat(file)).mode & 0o777, 0o600);

      const second = countedChecks(sandboxBackend("bwrap"));
      const taken = await memo().check(second.backend);
      assert.deepEqual(taken, made);
      assert.equal(second.checks(), 0);
    },
  );

  test("a kept pass is not taken under another key, nor once it is older than the reuse time", async () => {
    let key = "machine one";
    let now = 1_000_000;
    const clock = { now: () => now, maxAgeMs: 60_000 };
    const made = standIn(() => key);
    await memo(clock).check(made.backend);
    assert.equal(made.checks(), 1);

    const sameKey = standIn(() => key);
    await memo(clock).check(sameKey.backend);
    assert.equal(sameKey.checks(), 0, "the same key within the reuse time takes the pass");

    key = "machine one, with another bubblewrap";
    const otherKey = standIn(() => key);
    await memo(clock).check(otherKey.backend);
    assert.equal(otherKey.checks(), 1, "another key checks again");

    now += 60_001;
    const later = standIn(() => key);
    await memo(clock).check(later.backend);
    assert.equal(later.checks(), 1, "a pass past the reuse time is checked again");

    now -= 120_000;
    const earlier = standIn(() => key);
    await memo(clock).check(earlier.backend);
    assert.equal(earlier.checks(), 1, "a pass from the future (a clock set back) is no pass");
  });

  test("a failed check, or a backend without a key, keeps nothing", async () => {
    await rm(checksDir(dataDir), { recursive: true, force: true });
    const failing = standIn(() => "a key", false);
    await memo().check(failing.backend);
    const keyless = standIn(() => undefined);
    await memo().check(keyless.backend);
    await assert.rejects(stat(join(checksDir(dataDir), "bwrap.json")), { code: "ENOENT" });
  });

  test("a kept file that is not warden's is no pass, and the next pass replaces it", async () => {
    await mkdir(checksDir(dataDir), { recursive: true });
    const file = join(checksDir(dataDir), "bwrap.json");
    const planted = [
      "not json",
      JSON.stringify({ version: 1, key: "k", at: "yesterday", detail: "x" }),
      JSON.stringify({ version: 2, key: "k", at: Date.now(), detail: "x" }),
      JSON.stringify({ version: 1, key: "k", at: Date.now(), detail: "x".repeat(70_000) }),
    ];
    for (const text of planted) {
      await writeFile(file, text);
      const backend = standIn(() => "k");
      await memo().check(backend.backend);
      assert.equal(backend.checks(), 1, text.slice(0, 40));
    }
    const kept = JSON.parse(await readFile(file, "utf8")) as { key: string; detail: string };
    assert.deepEqual([kept.key, kept.detail], ["k", "a stand-in's pass"]);

    // A link where the file belongs is never read through: the pass it points at is not taken.
    const elsewhere = join(dataDir, "elsewhere.json");
    await writeFile(elsewhere, await readFile(file, "utf8"));
    await rm(file);
    await symlink(elsewhere, file);
    const linked = standIn(() => "k");
    await memo().check(linked.backend);
    assert.equal(linked.checks(), 1);
  });

  test(
    "bubblewrap's key is the same for the same machine, and changes with the program",
    { skip: NEEDS_BWRAP },
    async () => {
      const host = probeBwrapHost();
      assert.ok(host.bwrap !== null);
      assert.equal(await bwrapCheckKey(host), await bwrapCheckKey(probeBwrapHost()));
      const other = join(dataDir, "bwrap-copy");
      await writeFile(other, await readFile(host.bwrap));
      assert.notEqual(await bwrapCheckKey({ ...host, bwrap: other }), await bwrapCheckKey(host));
      assert.equal(await bwrapCheckKey({ ...host, bwrap: join(dataDir, "missing") }), undefined);
    },
  );
});

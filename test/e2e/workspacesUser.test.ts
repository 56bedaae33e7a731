// A two-repository task run by an ordinary user (made for the purpose when the suite runs as
// root): the bound repository's history cache and its clone work under that user's sandbox
// too, and both repositories come back as branches.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { skipWhen } from "../support/skipWhen.js";
import { giveTo, ordinaryUser, spawnAsUser, type TestUserOutcome } from "../sandbox/testUser.js";
import { CLI_MAIN, makeRepo, NO_SYSTEM } from "./fixtures.js";

/** A run as the user that has not ended by then has hung: it is killed and the test fails. */
const RUN_MS = 120_000;

const outcome: TestUserOutcome =
  NO_SYSTEM === undefined ? await ordinaryUser() : { ok: false, why: String(NO_SYSTEM) };
const NO_USER = skipWhen(outcome.ok ? false : outcome.why);

describe("several repositories as an ordinary user", { skip: NO_SYSTEM || NO_USER }, () => {
  const started: ChildProcess[] = [];
  const made: string[] = [];
  after(async () => {
    for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  test("an ordinary user's task edits two repositories and gets two verified branches", async () => {
    if (!outcome.ok) assert.fail(outcome.why);
    const user = outcome.user;
    const root = await mkdtemp("/tmp/warden-user-workspaces-");
    made.push(root);
    const app = await makeRepo(join(root, "app"));
    const lib = await makeRepo(join(root, "lib"), { files: { "lib.txt": "the library\n" } });
    await giveTo(root, user);
    const cli = (args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
      const child = spawnAsUser(user, [CLI_MAIN, "--data-dir", join(root, "data"), ...args]);
      started.push(child);
      const timer = setTimeout(() => child.kill("SIGKILL"), RUN_MS);
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
      return new Promise((resolve) =>
        child.once("close", (code) => {
          clearTimeout(timer);
          resolve({ code, out, err });
        }),
      );
    };
    // The user has no cgroup of its own on a test machine: the bounds are asked off by hand.
    const bounds = user.switched ? ["--memory", "0", "--max-processes", "0"] : [];
    const run = await cli([
      "run",
      "--repo",
      app.repo,
      "--workspace",
      `lib=${lib.repo}`,
      ...bounds,
      "--prompt",
      "edit both",
      "--json",
      "--",
      "sh",
      "-c",
      "echo app >> README.md && git commit -qam app && cd ../lib && echo lib >> lib.txt && git commit -qam lib",
    ]);
    assert.equal(run.code, 0, run.out + run.err);
    const view = JSON.parse(run.out) as {
      id: string;
      changes: boolean;
      workspaces: { name: string; changes: boolean }[];
    };
    assert.equal(view.changes, true);
    assert.deepEqual(view.workspaces, [{ name: "lib", changes: true }]);
    for (const args of [
      ["fetch", view.id],
      ["fetch", view.id, "--workspace", "lib"],
    ]) {
      const fetched = await cli([...args, "--json"]);
      assert.equal(fetched.code, 0, fetched.err);
    }
    // Read as files: root's git would refuse a repository another user owns.
    const ref = (repo: string): Promise<string> =>
      readFile(join(repo, ".git", "refs", "heads", "warden", view.id), "utf8");
    assert.match(await ref(app.repo), /^[0-9a-f]{40}\n$/);
    assert.match(await ref(lib.repo), /^[0-9a-f]{40}\n$/);
    assert.notEqual(await ref(app.repo), await ref(lib.repo));
  });
});

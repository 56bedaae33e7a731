// The search for an agent's conversation file: it finds the file by its name's beginning and end
// at most `depth` directories down, takes the most recently written of several, never follows a
// link, and gives up (finding none) past its bound on the entries it looks at.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { findSessionFile } from "../../src/guest/findSessionFile.js";
import { GUEST_CHECKPOINT_LIMITS } from "../../src/guest/limits.js";

describe("finding an agent's conversation file", () => {
  let root = "";
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-find-"));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const search = (dir: string, depth: number) =>
    ({ kind: "search", dir, depth, prefix: "rollout-", suffix: "-abc.jsonl" }) as const;

  async function file(path: string, text: string, mtime: number): Promise<string> {
    await writeFile(path, text);
    await utimes(path, mtime, mtime);
    return path;
  }

  test("takes the most recently written match within its depth", async () => {
    const dir = join(root, "depth");
    await mkdir(join(dir, "2026", "12", "02"), { recursive: true });
    await mkdir(join(dir, "a", "b", "c", "d"), { recursive: true });
    await file(join(dir, "rollout-1-abc.jsonl"), "old\n", 1000);
    const newest = await file(join(dir, "2026", "12", "02", "rollout-2-abc.jsonl"), "new\n", 2000);
    await file(join(dir, "2026", "12", "02", "rollout-3-xyz.jsonl"), "other\n", 3000);
    await file(join(dir, "a", "b", "c", "d", "rollout-4-abc.jsonl"), "too deep\n", 4000);
    assert.equal(await findSessionFile(search(dir, 3)), newest);
    assert.equal(await findSessionFile(search(dir, 0)), join(dir, "rollout-1-abc.jsonl"));
    assert.equal(await findSessionFile(search(join(root, "none"), 3)), undefined);
  });

  test("of two written at once takes the larger, and never a link", async () => {
    const dir = join(root, "tie");
    await mkdir(dir);
    await file(join(dir, "rollout-a-abc.jsonl"), "a preamble\n", 1000);
    const whole = await file(join(dir, "rollout-b-abc.jsonl"), "a preamble\nand more\n", 1000);
    await symlink("/etc/passwd", join(dir, "rollout-c-abc.jsonl"));
    assert.equal(await findSessionFile(search(dir, 0)), whole);
  });

  test("finds none in a directory with more entries than its bound", async () => {
    const dir = join(root, "flood");
    await mkdir(dir);
    await file(join(dir, "rollout-0-abc.jsonl"), "x\n", 1000);
    const names = Array.from({ length: GUEST_CHECKPOINT_LIMITS.sessionSearchEntries }, (_, i) =>
      join(dir, `junk-${i}`),
    );
    await Promise.all(names.map((name) => writeFile(name, "")));
    assert.equal(await findSessionFile(search(dir, 0)), undefined);
  });

  test("a known path is found when it exists", async () => {
    const path = await file(join(root, "known.jsonl"), "{}\n", 1000);
    assert.equal(await findSessionFile({ kind: "path", path }), path);
    assert.equal(await findSessionFile({ kind: "path", path: `${path}.gone` }), undefined);
  });
});

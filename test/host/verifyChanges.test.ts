// A bundle from the sandbox is checked against the base the host computed: header first, then
// git's strict object checks in a scratch repository (objects git's fsck refuses are tried in
// hostileObjects.test.ts). Each bundle here is made by real git in a clone, never in the user's
// repository, whose refs must not change.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { verifyChanges, type BundleFacts } from "../../src/host/verifyChanges.js";
import { git, hostFixture, type HostFixture } from "./fixtures.js";
import { withForgedPrerequisite } from "../support/forgedBundle.js";

let fx: HostFixture;
let work: string;
let gitDir: string;
let refsBefore: string;

before(async () => {
  fx = await hostFixture();
  gitDir = join(fx.repo, ".git");
  refsBefore = await git(fx.repo, "for-each-ref");
  work = join(fx.root, "work");
  await git(fx.root, "clone", "--quiet", fx.repo, work);
  await git(work, "switch", "--quiet", "-c", "warden/task");
  await writeFile(join(work, "new.txt"), "new\n");
  await git(work, "add", "new.txt");
  await git(work, "commit", "--quiet", "-m", "new");
});

after(async () => {
  assert.equal(await git(fx.repo, "for-each-ref"), refsBefore, "the user's refs never change");
  await fx.cleanup();
});

async function bundle(name: string, ...refs: string[]): Promise<string> {
  const path = join(fx.root, `${name}.bundle`);
  await git(work, "bundle", "create", "--quiet", path, ...refs);
  return path;
}

/** The error of a refused bundle; fails the test for any other outcome. */
function refusal(facts: BundleFacts): string {
  if (facts.kind !== "refused") assert.fail(`the bundle was not refused: ${JSON.stringify(facts)}`);
  return facts.error;
}

function verify(path: string, base = fx.head) {
  return verifyChanges({
    bundle: path,
    base,
    gitDir,
    objectFormat: "sha1",
    scratchParent: fx.root,
  });
}

test("a bundle of the task branch on top of the base is verified, with its head", async () => {
  const path = await bundle("good", "refs/heads/warden/task", `^${fx.head}`);
  const facts = await verify(path);
  assert.deepEqual(facts, {
    kind: "verified",
    head: await git(work, "rev-parse", "HEAD"),
    commits: 1,
  });
  assert.ok(existsSync(path));
});

test("no bundle means no changes", async () => {
  assert.deepEqual(await verify(join(fx.root, "missing.bundle")), { kind: "none" });
});

test("a bundle that also carries another branch is refused and removed", async () => {
  await git(work, "branch", "-f", "main", "warden/task");
  const path = await bundle("two-refs", "refs/heads/warden/task", "refs/heads/main", `^${fx.head}`);
  const facts = await verify(path);
  assert.equal(facts.kind, "refused");
  assert.match(refusal(facts), /refs\/heads\/main/);
  assert.equal(existsSync(path), false, "a refused bundle is deleted");
});

test("a bundle that builds on another commit than the base is refused", async () => {
  const parent = await git(work, "rev-parse", `${fx.head}~1`);
  const path = await bundle("other-base", "refs/heads/warden/task", `^${parent}`);
  const facts = await verify(path);
  assert.equal(facts.kind, "refused");
  assert.match(refusal(facts), /not the base/);
});

test("a bundle of an unrelated history is refused, even when it names the base as needed", async () => {
  await git(work, "switch", "--quiet", "--orphan", "elsewhere");
  await writeFile(join(work, "other.txt"), "other\n");
  await git(work, "add", "other.txt");
  await git(work, "commit", "--quiet", "-m", "unrelated");
  await git(work, "branch", "-f", "warden/task", "elsewhere");
  const whole = await bundle("unrelated", "refs/heads/warden/task");
  await git(work, "switch", "--quiet", "main");
  const refused = await verify(whole);
  assert.equal(refused.kind, "refused", "without a prerequisite, by its header");
  // The same history with the base written in as its prerequisite passes the header check and
  // git's fetch, and is refused because its head does not descend from the base.
  await git(work, "bundle", "create", "--quiet", whole, "refs/heads/warden/task");
  const forged = join(fx.root, "forged.bundle");
  await withForgedPrerequisite(whole, fx.head, forged);
  const facts = await verify(forged);
  assert.equal(facts.kind, "refused");
  assert.match(refusal(facts), /does not descend from the base/);
});

// A pack git cannot even read is refused before fsck looks at any object; a well-formed pack
// holding objects fsck refuses is tried in hostileObjects.test.ts.
test("a bundle whose pack is not a pack at all is refused, with git's reason", async () => {
  await git(work, "branch", "-f", "warden/task", "HEAD");
  const good = await bundle("to-damage", "refs/heads/warden/task", `^${fx.head}`);
  const bytes = await readFile(good);
  // Keep the header, replace the pack with bytes that are not one.
  const headerEnd = bytes.indexOf("\n\n") + 2;
  const damaged = join(fx.root, "damaged.bundle");
  await writeFile(damaged, bytes.subarray(0, headerEnd));
  await appendFile(damaged, Buffer.from("PACK\0\0\0\u0002\0\0\0\u0001garbage"));
  const facts = await verify(damaged);
  assert.match(refusal(facts), /fail git's strict object check: git says: /);
  assert.equal(existsSync(damaged), false);
});

test("bytes that are not a bundle are refused before git sees them", async () => {
  const path = join(fx.root, "not.bundle");
  await writeFile(path, "\x1b[2Jhello\n");
  const facts = await verify(path);
  assert.equal(facts.kind, "refused");
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  assert.doesNotMatch(refusal(facts), /\x1b/);
});

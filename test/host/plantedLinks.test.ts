// Links planted where the host keeps its own directories and files inside a task's directory
// (share/, workspace/, egress/, results/ and the logs in it): an attach refuses them before it
// removes or makes anything, cleaning up removes only the link, and no log is ever opened
// through one. Each link points outside, and what it points at is left exactly as it was.
import { strict as assert } from "node:assert";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ProxyLog } from "../../src/egress/proxyLog.js";
import { GuestProgress } from "../../src/host/guestProgress.js";
import { SILENT_REPORTER } from "../../src/host/reporter.js";
import { cleanAttempt } from "../../src/host/cleanAttempt.js";
import { prepareAttempt, taskLayout, type TaskLayout } from "../../src/host/taskLayout.js";
import { writeShare } from "../../src/host/writeShare.js";

let root: string;
let outside: string;
let count = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-layout-"));
  outside = await mkdtemp(join(tmpdir(), "warden-outside-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

const KEEP = "the owner's own bytes\n";

/** The layout of a fresh task directory. */
function freshLayout(): TaskLayout {
  count++;
  const layout = taskLayout(root, `01j9zzzzzzzzzzzzzzzzzzz${String(count).padStart(3, "0")}`);
  mkdirSync(layout.dir, { recursive: true });
  return layout;
}

/** A directory outside holding one file, for a link to point at. */
function outsideDir(): string {
  count++;
  const dir = join(outside, `dir-${count}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "keep"), KEEP);
  return dir;
}

function outsideFile(): string {
  count++;
  const path = join(outside, `file-${count}`);
  writeFileSync(path, KEEP);
  return path;
}

function assertUntouchedDir(dir: string): void {
  assert.deepEqual(readdirSync(dir), ["keep"]);
  assert.equal(readFileSync(join(dir, "keep"), "utf8"), KEEP);
}

for (const name of ["share", "workspace", "egress", "results"] as const) {
  test(`an attach refuses ${name}/ when it is a link, and empties nothing it points at`, async () => {
    const layout = freshLayout();
    const target = outsideDir();
    symlinkSync(target, layout[name]);
    await assert.rejects(prepareAttempt(layout), (error: unknown) => {
      assert.equal((error as { code?: string }).code, "PLANTED_LINK");
      assert.match(
        (error as Error).message,
        new RegExp(`${name} is damaged: it is a symbolic link`),
      );
      assert.match((error as { hint?: string }).hint ?? "", /remove the link/);
      return true;
    });
    assertUntouchedDir(target);
  });
}

test("an attach in a task directory of real files and directories prepares it as before", async () => {
  const layout = freshLayout();
  mkdirSync(layout.results);
  writeFileSync(layout.hostLog, "an earlier attach\n");
  writeFileSync(layout.result("transcript.jsonl"), "{}\n");
  mkdirSync(layout.workspace);
  writeFileSync(join(layout.workspace, "left-over"), "x");
  await prepareAttempt(layout);
  assert.deepEqual(readdirSync(layout.workspace), []);
  assert.deepEqual(readdirSync(layout.share), []);
  assert.deepEqual(readdirSync(layout.results), ["host.log"]);
  await cleanAttempt(layout);
  assert.equal(existsSync(layout.workspace), false);
});

const LOGS = { proxyLog: "proxy.log", hostLog: "host.log", guestLog: "guest.log" } as const;
for (const name of ["proxyLog", "hostLog", "guestLog"] as const) {
  test(`an attach refuses results/${LOGS[name]} when it is a link, and writes nothing to its target`, async () => {
    const layout = freshLayout();
    mkdirSync(layout.results);
    const target = outsideFile();
    symlinkSync(target, layout[name]);
    await assert.rejects(prepareAttempt(layout), code("PLANTED_LINK"));
    assert.equal(readFileSync(target, "utf8"), KEEP);
  });
}

test("a result file planted as a link is refused before an attach removes anything", async () => {
  const layout = freshLayout();
  mkdirSync(layout.results);
  const target = outsideFile();
  symlinkSync(target, layout.result("changes.bundle"));
  await assert.rejects(prepareAttempt(layout), code("PLANTED_LINK"));
  assert.equal(readFileSync(target, "utf8"), KEEP);
});

test("cleaning up after an attach removes planted links, never what they point at", async () => {
  const layout = freshLayout();
  const targets = [outsideDir(), outsideDir(), outsideDir()];
  symlinkSync(targets[0] ?? "", layout.share);
  symlinkSync(targets[1] ?? "", layout.workspace);
  symlinkSync(targets[2] ?? "", layout.egress);
  await cleanAttempt(layout);
  for (const path of [layout.share, layout.workspace, layout.egress]) {
    assert.equal(existsSync(path) || isLink(path), false, path);
  }
  for (const target of targets) assertUntouchedDir(target);
});

test("the share is never written through a link planted inside it", async () => {
  const layout = freshLayout();
  mkdirSync(layout.share);
  const target = outsideFile();
  symlinkSync(target, join(layout.share, "prompt.md"));
  await assert.rejects(
    writeShare(layout.share, {
      settings: { agent: "command", command: ["true"] },
      prompt: "overwrite it",
      gitDir: join(root, "no-repo.git"),
      base: "0".repeat(40),
      objectFormat: "sha1",
    }),
    code("EEXIST"),
  );
  assert.equal(readFileSync(target, "utf8"), KEEP);
});

test("the guest log and the proxy log are never opened through a link", () => {
  const layout = freshLayout();
  mkdirSync(layout.results);
  const guestTarget = outsideFile();
  const proxyTarget = outsideFile();
  symlinkSync(guestTarget, layout.guestLog);
  symlinkSync(proxyTarget, layout.proxyLog);
  assert.throws(
    () => new GuestProgress(layout.guestLog, layout.id, () => undefined, SILENT_REPORTER),
    code("PLANTED_LINK"),
  );
  assert.throws(() => new ProxyLog(layout.proxyLog, 10), code("ELOOP"));
  assert.equal(readFileSync(guestTarget, "utf8"), KEEP);
  assert.equal(readFileSync(proxyTarget, "utf8"), KEEP);
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

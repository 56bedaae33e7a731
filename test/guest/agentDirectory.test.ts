// The runner's own refusal of a directory to run the agent in that the checked-out commit does
// not hold as a directory of the workspace: the host refuses such a task before it is made, but
// a task made without the host's checks (or a share written by anything else) reaches the runner.
import { strict as assert } from "node:assert";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { agentDirectory } from "../../src/guest/agentDirectory.js";
import { BadShareError } from "../../src/protocol/index.js";

async function workspace(t: TestContext): Promise<{ root: string; workspace: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "warden-agentdir-")));
  t.after(() => rm(root, { recursive: true, force: true }));
  const ws = join(root, "workspace");
  await mkdir(join(ws, "pkg", "app"), { recursive: true });
  await writeFile(join(ws, "pkg", "file.txt"), "f\n");
  return { root, workspace: ws };
}

const refusal = (dir: string): { code: string; message: RegExp } => ({
  code: new BadShareError("x").code,
  message: new RegExp(`the directory ${dir} the agent is to run in is not in the start commit`),
});

test("no directory named runs the agent at the workspace's top", async (t) => {
  const { workspace: ws } = await workspace(t);
  assert.equal(await agentDirectory(ws), ws);
});

test("a directory of the workspace is where the agent runs", async (t) => {
  const { workspace: ws } = await workspace(t);
  assert.equal(await agentDirectory(ws, "pkg/app"), join(ws, "pkg", "app"));
});

test("a directory the workspace lacks is refused, naming it", async (t) => {
  const { workspace: ws } = await workspace(t);
  await assert.rejects(agentDirectory(ws, "fresh"), refusal("fresh"));
});

test("a file in the directory's place is refused", async (t) => {
  const { workspace: ws } = await workspace(t);
  await assert.rejects(agentDirectory(ws, "pkg/file.txt"), refusal("pkg/file.txt"));
});

test("a link in the directory's place that leads out of the workspace is refused", async (t) => {
  const { root, workspace: ws } = await workspace(t);
  await mkdir(join(root, "outside"));
  await symlink(join(root, "outside"), join(ws, "out"));
  await symlink("../..", join(ws, "pkg", "up"));
  await assert.rejects(agentDirectory(ws, "out"), refusal("out"));
  await assert.rejects(agentDirectory(ws, "pkg/up"), refusal("pkg/up"));
});

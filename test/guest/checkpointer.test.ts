// The runner's checkpoints as the agent ends, against a stand-in host over a real socket and a
// real git workspace: the end is checkpointed only when the last kept checkpoint does not already
// hold it, and an agent that keeps no session gets none.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test, type TestContext } from "node:test";
import type { WorkspaceCheckpoint } from "../../src/guest/checkpointGit.js";
import { Checkpointer } from "../../src/guest/checkpointer.js";
import { gitEnvironment } from "../../src/guest/gitSteps.js";
import { GUEST_CHECKPOINT_LIMITS } from "../../src/guest/limits.js";
import { HostChannel } from "../../src/guest/hostChannel.js";
import { phaseTrace, type PhaseTrace, type TracedPhase } from "../../src/lang/index.js";
import { git, makeRepo } from "../support/share.js";
import { startFakeHost, type FakeHost } from "./fakeHost.js";

describe("the checkpoint as the agent ends", () => {
  let root = "";
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-checkpointer-"));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A workspace, a session file, a stand-in host and a Checkpointer between them. */
  async function setUp(
    t: TestContext,
    name: string,
    keepsSession: boolean,
    now?: () => number,
    trace?: PhaseTrace,
  ): Promise<{ checkpointer: Checkpointer; host: FakeHost; session: string; workspace: string }> {
    const dir = join(root, name);
    const { repo: workspace, head: base } = await makeRepo(join(dir, "workspace"));
    const session = join(dir, "session.jsonl");
    await writeFile(session, '{"type":"user","n":1}\n');
    const host = await startFakeHost();
    const channel = await HostChannel.open(host.socket);
    t.after(async () => {
      channel.close();
      await host.close();
    });
    const checkpointer = new Checkpointer({
      channel,
      repo: {
        workspace,
        repo: join(dir, "checkpoints.git"),
        base,
        identity: { name: "warden", email: "warden@localhost" },
      },
      gitEnv: gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", dir),
      scratch: dir,
      sessionFile: () => Promise.resolve({ id: "session-1", path: session }),
      keepsSession,
      progress: () => undefined,
      warn: (text) => {
        throw new Error(`unexpected warning: ${text}`);
      },
      stop: new AbortController().signal,
      ...(now === undefined ? {} : { now }),
      ...(trace === undefined ? {} : { trace }),
    });
    return { checkpointer, host, session, workspace };
  }

  /** A turn boundary, and its checkpoint kept by the host. */
  async function boundaryKept(checkpointer: Checkpointer, host: FakeHost): Promise<void> {
    const from = host.recorded.length;
    checkpointer.boundary();
    await host.waitFor(
      (r) => r.request.op === "checkpoint.end" && host.recorded.indexOf(r) >= from,
      20_000,
    );
  }

  test("an end the last checkpoint already holds takes no further checkpoint", async (t) => {
    const { checkpointer, host } = await setUp(t, "held", true);
    await boundaryKept(checkpointer, host);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1);
    assert.equal(host.checkpoints[0]?.sessionId, "session-1");
  });

  test("a session that grew after the last checkpoint is checkpointed at the end", async (t) => {
    const { checkpointer, host, session } = await setUp(t, "grown", true);
    await boundaryKept(checkpointer, host);
    await appendFile(session, '{"type":"assistant","n":2}\n');
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 2);
    assert.match(host.checkpoints[1]?.session?.toString() ?? "", /"n":2/);
  });

  test("a turn boundary after the last checkpoint is checkpointed at the end", async (t) => {
    const { checkpointer, host, workspace } = await setUp(t, "later-turn", true);
    await boundaryKept(checkpointer, host);
    // The boundary's own checkpoint waits for the throttle; the end does not.
    await writeFile(join(workspace, "late.txt"), "written in the last turn\n");
    checkpointer.boundary();
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 2);
    assert.notEqual(host.checkpoints[1]?.tip, undefined, "the last turn's file is in it");
  });

  test("a checkpoint in progress as the agent exits is let finish before its leftovers are stopped", async (t) => {
    const { checkpointer, host } = await setUp(t, "settled", true);
    checkpointer.boundary();
    // The checkpoint has begun: its session reaches the host piece by piece before its end.
    await host.waitFor((r) => r.request.op === "checkpoint.piece", 20_000);
    assert.equal(host.checkpoints.length, 0);
    await checkpointer.settle();
    assert.equal(host.checkpoints.length, 1, "settle returned before the checkpoint was kept");
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1, "the kept one already holds the end");
  });

  test("settling with no checkpoint in progress cancels the one waiting for its turn", async (t) => {
    let now = 0;
    const { checkpointer, host } = await setUp(t, "cancelled", true, () => now);
    await boundaryKept(checkpointer, host);
    // The kept checkpoint's own bookkeeping ends a moment after the host's answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Long after the last checkpoint, the next boundary's checkpoint is due at once; the agent
    // exits before its timer fires.
    now = 3_600_000;
    checkpointer.boundary();
    await checkpointer.settle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(host.checkpoints.length, 1);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 2, "the end is still checkpointed");
  });

  test("an agent that exits just after its last turn boundary gets one checkpoint, of its end", async (t) => {
    const { checkpointer, host, session } = await setUp(t, "quick-end", true);
    checkpointer.boundary();
    // As Claude Code does: the end's last lines reach the session a moment after the turn's
    // boundary, and the agent exits a moment later.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await appendFile(session, '{"type":"result","n":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 30));
    await checkpointer.settle();
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1);
    assert.match(host.checkpoints[0]?.session?.toString() ?? "", /"type":"result"/);
  });

  test("an agent slow to exit once its input is closed gets one checkpoint, of its end, at its exit", async (t) => {
    const { checkpointer, host, session } = await setUp(t, "slow-exit", true);
    checkpointer.boundary();
    await appendFile(session, '{"type":"result","n":2}\n');
    checkpointer.ending();
    // Well past a boundary's own wait, the agent has still not exited.
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(host.checkpoints.length, 0, "a checkpoint began in the agent's exit");
    await checkpointer.settle();
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1);
    assert.match(host.checkpoints[0]?.session?.toString() ?? "", /"type":"result"/);
  });

  test("a checkpoint begun before the agent's input was closed does not spare the last one", async (t) => {
    const { checkpointer, host } = await setUp(t, "begun-before-end", true);
    checkpointer.boundary();
    await host.waitFor((r) => r.request.op === "checkpoint.piece", 20_000);
    checkpointer.ending();
    await checkpointer.settle();
    assert.equal(host.checkpoints.length, 1);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 2, "the end was not checkpointed at the exit");
  });

  test("a turn boundary after the agent's input was closed is checkpointed at the usual pace", async (t) => {
    const { checkpointer, host } = await setUp(t, "went-on", true);
    checkpointer.ending();
    checkpointer.boundary();
    // Kept well before the wait the end would have had.
    await host.waitFor(
      (r) => r.request.op === "checkpoint.end",
      GUEST_CHECKPOINT_LIMITS.endingGraceMs - 2_000,
    );
    await checkpointer.settle();
    assert.equal(host.checkpoints.length, 1);
    checkpointer.close();
  });

  test("the checkpoints' repository is made while the agent runs, before any checkpoint", async (t) => {
    const { checkpointer, host } = await setUp(t, "prepared", true);
    checkpointer.prepare();
    const alternates = join(root, "prepared", "checkpoints.git", "objects", "info", "alternates");
    const deadline = Date.now() + 20_000;
    while (!existsSync(alternates)) {
      assert.ok(Date.now() < deadline, "the repository was not made");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(host.checkpoints.length, 0);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1, "the end's checkpoint uses it");
  });

  test("a traced checkpoint times its workspace's changes, the send and the host's keeping", async (t) => {
    const phases: TracedPhase[] = [];
    const trace = phaseTrace("guest", (phase) => phases.push(phase));
    const { checkpointer, host } = await setUp(t, "traced", true, undefined, trace);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 1);
    assert.deepEqual(
      phases.map((phase) => phase.name),
      [
        "checkpoint: the workspace's changes",
        "checkpoint: send its files",
        "checkpoint: the host keeps it",
      ],
    );
    for (const phase of phases) assert.ok(phase.end >= phase.start, phase.name);
  });

  test("the last checkpoint sends the session while finishing runs, then finishing's bundle", async (t) => {
    const phases: TracedPhase[] = [];
    const trace = phaseTrace("guest", (phase) => phases.push(phase));
    const { checkpointer, host, workspace } = await setUp(t, "finished", true, undefined, trace);
    // Finishing committed the agent's work: its bundle of the task branch is the checkpoint's.
    const agentHead = await git(workspace, "rev-parse", "HEAD");
    await git(workspace, "switch", "--quiet", "-c", "warden/task");
    await writeFile(join(workspace, "left.txt"), "left uncommitted, committed by finishing\n");
    await git(workspace, "add", "left.txt");
    await git(workspace, "commit", "--quiet", "-m", "leftovers");
    const tip = await git(workspace, "rev-parse", "HEAD");
    const bundle = join(root, "finished", "changes.bundle");
    await git(workspace, "bundle", "create", "--quiet", bundle, "warden/task", `^${agentHead}`);
    let finishedIs: (checkpoint: WorkspaceCheckpoint | undefined) => void = () => undefined;
    const finished = new Promise<WorkspaceCheckpoint | undefined>((resolve) => {
      finishedIs = resolve;
    });
    const ending = checkpointer.final(finished);
    await host.waitFor(
      (r) => r.request.op === "checkpoint.piece" && r.request.part === "session",
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(host.checkpoints.length, 0, "the checkpoint ended before finishing did");
    finishedIs({ head: agentHead, tip, bundle });
    await ending;
    assert.equal(host.checkpoints.length, 1);
    const kept = host.checkpoints[0];
    assert.equal(kept?.head, agentHead);
    assert.equal(kept.tip, tip);
    assert.equal(kept.sessionId, "session-1");
    assert.deepEqual(kept.bundle, await readFile(bundle), "finishing's bundle, byte for byte");
    assert.deepEqual(
      phases.map((phase) => phase.name),
      [
        "checkpoint: send the session",
        "checkpoint: wait for finishing",
        "checkpoint: send the bundle",
        "checkpoint: the host keeps it",
      ],
      "the workspace was not walked again",
    );
  });

  test("when finishing gives no workspace part, the last checkpoint takes the workspace itself", async (t) => {
    const { checkpointer, host, workspace } = await setUp(t, "unfinished", true);
    const head = await git(workspace, "rev-parse", "HEAD");
    await writeFile(join(workspace, "left.txt"), "left uncommitted\n");
    await checkpointer.final(Promise.resolve(undefined));
    assert.equal(host.checkpoints.length, 1);
    const kept = host.checkpoints[0];
    assert.equal(kept?.head, head);
    assert.notEqual(kept.tip, undefined, "the uncommitted file is its own tip");
    assert.notEqual(kept.bundle, undefined);
  });

  test("an agent that keeps no session gets no checkpoint at its end", async (t) => {
    const { checkpointer, host } = await setUp(t, "sessionless", false);
    await checkpointer.final();
    assert.equal(host.checkpoints.length, 0);
  });
});

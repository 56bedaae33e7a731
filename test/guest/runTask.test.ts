// runTask in process: the same runner the binary is, driven from a test without a child.
import { strict as assert } from "node:assert";
import { readFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { runTask } from "../../src/guest/runTask.js";
import { receiveResults } from "../../src/protocol/index.js";
import { makeTask, shellAgent } from "../support/share.js";

test("output of an agent that exits at once is never lost", async (t) => {
  // Node drops a child's output that nobody reads by the time it exits; the runner must be
  // reading before the agent can exit. Ten quick agents in a row make a lost byte show.
  const fixture = await makeTask({
    settings: { command: shellAgent("printf out; printf err >&2") },
  });
  t.after(() => fixture.cleanup());
  for (let i = 0; i < 10; i++) {
    const workspace = join(fixture.root, `workspace-${i}`);
    const results = join(fixture.root, `results-${i}`);
    await mkdir(results);
    const out = new PassThrough();
    const receiving = receiveResults(out, { dir: results });
    const progress: string[] = [];
    const outcome = await runTask({
      share: fixture.share,
      workspace,
      scratch: join(fixture.root, `scratch-${i}`),
      metadataPort: 0,
      ownPidNamespace: false,
      killGraceMs: 1000,
      agentEnv: [],
      sockets: undefined,
      egressPorts: "fixed",
      channelTimeoutMs: 10_000,
      out,
      progress: (line) => progress.push(line),
    });
    out.end();
    const received = await receiving;
    assert.equal(outcome.exitCode, 0, progress.join("\n"));
    assert.deepEqual(received.result, outcome.result);
    const transcript = received.files["transcript.jsonl"];
    const log = received.files["agent.log"];
    assert.ok(transcript && log);
    assert.equal(await readFile(transcript.path, "utf8"), "out", `run ${i}`);
    assert.equal(await readFile(log.path, "utf8"), "err", `run ${i}`);
  }
});

test("a runner stopped before it begins sends a result that says so, and runs no agent", async (t) => {
  const fixture = await makeTask({ settings: { command: shellAgent("touch ../agent-ran") } });
  t.after(() => fixture.cleanup());
  const out = new PassThrough();
  const receiving = receiveResults(out, { dir: fixture.results });
  const stop = new AbortController();
  stop.abort(new Error("stopped for the test"));
  const outcome = await runTask({
    share: fixture.share,
    workspace: fixture.workspace,
    scratch: fixture.scratch,
    metadataPort: 0,
    ownPidNamespace: false,
    killGraceMs: 1000,
    agentEnv: [],
    sockets: undefined,
    egressPorts: "fixed",
    channelTimeoutMs: 10_000,
    out,
    progress: () => undefined,
    stop: stop.signal,
  });
  out.end();
  const { result } = await receiving;
  assert.equal(outcome.exitCode, 1);
  assert.match(result.error ?? "", /stopped/);
  assert.equal(result.agentExitCode, undefined);
  await assert.rejects(readFile(join(fixture.root, "agent-ran")), "the agent never ran");
});

test("git that runs past its step's deadline is killed, and the result says so", async (t) => {
  const fixture = await makeTask({ settings: { command: ["true"] } });
  t.after(() => fixture.cleanup());
  const out = new PassThrough();
  const receiving = receiveResults(out, { dir: fixture.results });
  const started = Date.now();
  const outcome = await runTask({
    share: fixture.share,
    workspace: fixture.workspace,
    scratch: fixture.scratch,
    metadataPort: 0,
    ownPidNamespace: false,
    killGraceMs: 1000,
    agentEnv: [],
    sockets: undefined,
    egressPorts: "fixed",
    channelTimeoutMs: 10_000,
    out,
    progress: () => undefined,
    gitDeadlineMs: 1,
  });
  out.end();
  const { result } = await receiving;
  assert.equal(outcome.exitCode, 1);
  assert.match(result.error ?? "", /git did not prepare the workspace within/);
  assert.equal(result.base, undefined);
  assert.ok(Date.now() - started < 5000, "the runner did not wait for git");
});

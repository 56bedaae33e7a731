// The verbs against a fleet's store, run as the built `warden` would be by a person: a real
// nats-server, the CLI as a child process with --store, and the running side played by a
// FleetAttachment of the test (attach, events, a message, an approval, results, the end).
import { strict as assert } from "node:assert";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  FleetStore,
  putFile,
  submitTask,
  TASK_OBJECTS,
  type FleetAttachment,
} from "../../src/fleet/index.js";
import {
  cleanEnv,
  collect,
  runCli,
  startCli,
  type CliResult,
  type Workspace,
  workspace,
} from "../e2e/fixtures.js";
import { git } from "../host/fixtures.js";
import { CLI_NOT_BUILT } from "../support/cliSuite.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing() || CLI_NOT_BUILT;

describe("the verbs against a fleet's store", { skip }, () => {
  let server: NatsServer;
  let fleet: FleetStore;
  let ws: Workspace;
  before(async () => {
    server = await NatsServer.start();
    fleet = await FleetStore.open({ servers: server.url, env: {} });
    ws = await workspace();
  });
  after(async () => {
    await fleet.close();
    await server.stop();
    await ws.cleanup();
  });

  const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runCli(ws.dataDir, ["--store", server.url, ...args], { env: cleanEnv(env) });

  /** A task in the fleet, made as `run` makes one, and leased by the test as a worker would. */
  async function runningTask(prompt: string): Promise<FleetAttachment> {
    const { summary } = await submitTask(fleet, {
      repo: ws.repo,
      prompt,
      agent: "claude",
    });
    return fleet.attach(summary.id);
  }

  test("run -d puts the task in the fleet with its base and required labels, and prints its id", async () => {
    const ran = await cli([
      "run",
      "-d",
      "--repo",
      ws.repo,
      "--prompt",
      "label me",
      "--require",
      "gpu=1",
      "--",
      "true",
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    const id = ran.stdout.trim();
    const details = await fleet.get(id);
    assert.equal(details.spec.base, ws.head);
    assert.deepEqual((details.spec.settings as { require?: unknown }).require, { gpu: "1" });
    assert.notEqual(await fleet.objects.info(TASK_OBJECTS.base(id)), null);
    const listed = await cli(["ls", "-q"]);
    assert.match(listed.stdout, new RegExp(`^${id}$`, "m"));
    const shown = JSON.parse((await cli(["show", id, "--json"])).stdout) as { state: string };
    assert.equal(shown.state, "created");
  });

  test("run refuses a label that is not NAME=VALUE before anything is made", async () => {
    const before = (await fleet.list()).length;
    const ran = await cli(["run", "-d", "--repo", ws.repo, "--prompt", "x", "--require", "a b"]);
    assert.equal(ran.code, 2, ran.stderr);
    assert.match(ran.stderr, /--require a b is not NAME=VALUE/);
    assert.equal((await fleet.list()).length, before);
  });

  test("run follows the task until a worker ends it, and exits as a run here would", async () => {
    const child = startCli(
      ws.dataDir,
      ["--store", server.url, "run", "--repo", ws.repo, "--prompt", "follow me", "--", "true"],
      { env: cleanEnv() },
    );
    const ran = collect(child);
    let id: string | undefined;
    for (let i = 0; i < 200 && id === undefined; i++) {
      id = (await fleet.list()).find((t) => t.title === "follow me")?.id;
      if (id === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(id !== undefined, "the run made its task");
    const held = await fleet.attach(id);
    await held.appendEvent("worker_note", { text: "working on it" });
    await held.finish({ state: "failed", summary: "it broke", error: "the tests failed" });
    const result = await ran;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, new RegExp(`^${id} failed`, "m"));
    assert.match(result.stderr, /working on it/);
  });

  test("watch, wait and logs follow a task to its end and read the log its worker kept", async () => {
    const held = await runningTask("watch me");
    const watching = collect(
      startCli(ws.dataDir, ["--store", server.url, "watch", held.id], { env: cleanEnv() }),
    );
    const waiting = cli(["wait", held.id]);
    const following = cli(["logs", "--follow", held.id]);
    await held.appendEvent("worker_note", { text: "halfway there" });
    const notYet = await cli(["logs", held.id]);
    assert.equal(notYet.code, 1);
    assert.match(notYet.stderr, /comes back when it ends/);
    const log = join(ws.root, "guest.log");
    await writeFile(log, "runner: started\nrunner: \u001b[31mdone\n");
    await putFile(fleet.objects, TASK_OBJECTS.result(held.id, held.attempt, "guest.log"), log);
    await held.finish({ state: "succeeded", summary: "all good", details: { changes: false } });
    const watched = await watching;
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(watched.stdout, /halfway there/);
    assert.match(watched.stdout, /finished/);
    const waited = await waiting;
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, /succeeded/);
    const followed = await following;
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(followed.stdout, /runner: started/, "logs --follow prints the log at the end");
    const logs = await cli(["logs", held.id]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /runner: started/);
    assert.ok(!logs.stdout.includes("\u001b"), "the worker's text is cleaned");
    const diff = await cli(["diff", held.id]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.equal(diff.stdout, "", "a task that changed nothing has an empty diff");
  });

  test("send, approvals, approve and cancel reach the task's worker", async () => {
    const held = await runningTask("talk to me");
    const sent = await cli(["send", held.id, "please hurry"]);
    assert.equal(sent.code, 0, sent.stderr);
    const withFile = await cli(["send", held.id, "see this", "--file", ws.repo, "--json"]);
    assert.equal(withFile.code, 2);
    assert.equal((JSON.parse(withFile.stdout) as { code: string }).code, "LOCAL_ONLY_VERB");
    const taken = await held.takeMessages();
    assert.deepEqual(
      taken.map((m) => m.body),
      ["please hurry"],
    );
    await held.askApproval({ tool: "Bash", input: "make deploy" });
    const listed = await cli(["approvals", held.id]);
    assert.match(listed.stdout, /pending .*Bash: make deploy/);
    const approved = await cli(["approve", held.id, "1", "allow"]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal((await fleet.approvals(held.id))[0]?.decision, "allow");
    const cancelled = await cli(["cancel", held.id]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(await held.cancelRequested(), true);
    await held.finish({ state: "cancelled" });
  });

  test("a verb that needs this machine's task directory refuses a fleet's store", async () => {
    const id = (await fleet.list())[0]?.id ?? "";
    for (const args of [["exec", id, "--", "ls"], ["stop", id], ["rm", id], ["gc"]]) {
      const refused = await cli(args);
      assert.equal(refused.code, 2, `${args[0]}: ${refused.stderr}`);
      assert.match(refused.stderr, /works on this machine's tasks only/);
      assert.match(refused.stderr, /hint: run it with --store local/);
    }
  });

  test("a repository's config naming a store is ignored; the user's config is followed", async () => {
    await git(ws.repo, "config", "user.name", "t");
    const repoConfig = join(ws.repo, ".warden");
    await git(ws.root, "init", "--quiet", repoConfig);
    await writeFile(join(repoConfig, "config.yaml"), "store: nats://127.0.0.1:1\n");
    const here = await runCli(ws.dataDir, ["ls", "-q"], { env: cleanEnv(), cwd: ws.repo });
    assert.equal(here.code, 0, here.stderr);
    assert.equal(here.stdout, "", "this machine's store, which has no tasks, was listed");
    const home = join(ws.root, "config-home");
    await git(ws.root, "init", "--quiet", join(home, "warden"));
    await writeFile(join(home, "warden", "config.yaml"), `store: ${server.url}\n`);
    const user = await runCli(ws.dataDir, ["ls", "-q"], {
      env: cleanEnv({ XDG_CONFIG_HOME: home }),
      cwd: ws.repo,
    });
    assert.equal(user.code, 0, user.stderr);
    assert.equal(user.stdout.trim().split("\n").length, (await fleet.list()).length);
  });
});

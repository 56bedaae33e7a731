// Stepping inside a running task with real bubblewrap: `warden exec` runs as the agent runs (its
// uid, cgroup and network gate, nothing of the host), `warden shell` gets a real terminal that
// follows resizes and passes Ctrl-C (driven here through a pty of the test's own), `warden cp`
// copies both ways and refuses paths that lead out of the workspace, `--debug` holds the sandbox
// after the agent until `warden stop`, and a task without the setting refuses all of it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import {
  AWAIT_RELEASE,
  CLI_MAIN,
  cleanEnv,
  idOf,
  NO_SYSTEM,
  runCli,
  startCli,
  taskWorkspace,
  workspace,
  type CliResult,
  type Workspace,
} from "./fixtures.js";
import { startInPty } from "../support/ptyDriver.js";
import { skipWhen } from "../support/skipWhen.js";

const NO_PYTHON =
  NO_SYSTEM ??
  (skipWhen(
    !existsSync("/usr/bin/python3")
      ? "python3 is not in /usr/bin: warden shell needs it"
      : undefined,
  ) ||
    undefined);

/** What the agent writes before it waits: the facts exec must see the same. */
const FACTS =
  '{ id -u; id -g; grep -c : /proc/net/dev; echo "$HTTPS_PROXY"; cat /proc/self/cgroup; } > .agent-facts; ';

interface Events {
  type: string;
  kind?: string;
  exitCode?: number | null;
  error?: string;
}

async function events(ws: Workspace, id: string): Promise<Events[]> {
  const text = await readFile(join(ws.dataDir, "tasks", id, "events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Events);
}

/** A detached command task that records its facts, then waits for `release`. */
async function waitingTask(ws: Workspace, options: readonly string[]): Promise<string> {
  const run = await runCli(ws.dataDir, [
    "run",
    "--detach",
    "--repo",
    ws.repo,
    "--prompt",
    "wait",
    "--deadline",
    "5m",
    ...options,
    "--",
    "sh",
    "-c",
    FACTS + AWAIT_RELEASE,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const id = idOf(run);
  // The agent has written its facts once it has touched `started`.
  const started = join(taskWorkspace(ws.dataDir, id), "started");
  for (let i = 0; i < 600 && !existsSync(started); i++) await sleep(100);
  return id;
}

/** Starts a --debug task in the background whose agent is `sh -c script`; its id. */
async function startDebugTask(ws: Workspace, deadline: string, script: string): Promise<string> {
  const run = await runCli(ws.dataDir, [
    "run",
    "--detach",
    "--repo",
    ws.repo,
    "--prompt",
    "quick",
    "--deadline",
    deadline,
    "--debug",
    "--",
    "sh",
    "-c",
    script,
  ]);
  assert.equal(run.code, 0, run.stderr);
  return idOf(run);
}

/** Runs `warden exec` until the runner serves it (its workspace is being prepared first). */
async function execWhenServing(
  ws: Workspace,
  id: string,
  argv: string[],
  input?: string,
): Promise<CliResult> {
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    const result = await runCli(
      ws.dataDir,
      ["exec", id, "--", ...argv],
      input === undefined ? {} : { input },
    );
    if (!/not taking sessions|is created|is queued/.test(result.stderr) || Date.now() > giveUpAt)
      return result;
    await sleep(200);
  }
}

describe("stepping inside a running task", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let id: string;
  before(async () => {
    ws = await workspace();
    id = await waitingTask(ws, ["--allow-exec"]);
  });
  after(async () => {
    await writeFile(join(taskWorkspace(ws.dataDir, id), "release"), "");
    await runCli(ws.dataDir, ["wait", id, "--timeout", "60s"]);
    await ws.cleanup();
  });

  test("exec runs as the agent runs: its uid, its cgroup, its network gate, and nothing of the host", async () => {
    const exec = await execWhenServing(ws, id, [
      "sh",
      "-c",
      '{ id -u; id -g; grep -c : /proc/net/dev; echo "$HTTPS_PROXY"; cat /proc/self/cgroup; } > .exec-facts; ' +
        "cmp .agent-facts .exec-facts && echo same; cat .exec-facts; " +
        `test -e ${join(ws.dataDir, "tasks", id, "spec.json")} && echo HOST-VISIBLE; ls /proc | grep -c '^[0-9]' `,
    ]);
    assert.equal(exec.code, 0, exec.stderr);
    const [same, uid, , devices, proxy] = exec.stdout.split("\n");
    assert.equal(same, "same", exec.stdout);
    assert.notEqual(uid, "0", "not root inside");
    assert.equal(devices, "1", "only loopback");
    assert.match(proxy ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(exec.stdout, /HOST-VISIBLE/);
    const processes = Number(exec.stdout.trim().split("\n").at(-1));
    assert.ok(processes < 20, `only the sandbox's processes: ${processes}`);
  });

  test("exec streams stdin in and stdout and stderr out, and exits with the command's code", async () => {
    const exec = await execWhenServing(
      ws,
      id,
      ["sh", "-c", "cat; echo to-stderr >&2; exit 7"],
      "piped in\n",
    );
    assert.equal(exec.code, 7);
    assert.equal(exec.stdout, "piped in\n");
    assert.equal(exec.stderr, "to-stderr\n");
    const recorded = await events(ws, id);
    const ended = recorded.filter((e) => e.type === "inside_end" && e.kind === "exec");
    assert.ok(
      ended.some((e) => e.exitCode === 7),
      JSON.stringify(recorded.slice(-4)),
    );
    assert.ok(recorded.some((e) => e.type === "inside" && e.kind === "exec"));
  });

  test("an exec whose warden is killed ends its command inside, process group and all", async () => {
    await execWhenServing(ws, id, ["true"]);
    const child = startCli(ws.dataDir, [
      "exec",
      id,
      "--",
      "sh",
      "-c",
      "sleep 601 & sleep 602; wait",
    ]);
    const listing = async (): Promise<string> => {
      const list = await runCli(ws.dataDir, [
        "exec",
        id,
        "--",
        "sh",
        "-c",
        'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done',
      ]);
      assert.equal(list.code, 0, list.stderr);
      return list.stdout;
    };
    let seen = "";
    for (let i = 0; i < 100 && !/sleep 602/.test(seen); i++) {
      await sleep(100);
      seen = await listing();
    }
    assert.match(seen, /sleep 601/);
    child.kill("SIGKILL");
    let after = seen;
    for (let i = 0; i < 20 && /sleep 60[12]/.test(after); i++) {
      await sleep(200);
      after = await listing();
    }
    assert.doesNotMatch(after, /sleep 60[12]/);
    const recorded = await events(ws, id);
    assert.ok(
      recorded.some((e) => e.type === "inside_end" && e.error === "the user's side closed"),
    );
  });

  test("cp copies a file in and out byte for byte, and refuses paths that lead out of the workspace", async () => {
    await execWhenServing(ws, id, ["true"]);
    const blob = randomBytes(300_000);
    const local = join(ws.root, "blob.bin");
    await writeFile(local, blob);
    const copyIn = await runCli(ws.dataDir, ["cp", local, `${id}:in/deep/`]);
    assert.equal(copyIn.code, 0, copyIn.stderr);
    const copied = await readFile(join(taskWorkspace(ws.dataDir, id), "in", "deep", "blob.bin"));
    assert.ok(copied.equals(blob));
    const back = join(ws.root, "back.bin");
    const copyOut = await runCli(ws.dataDir, ["cp", `${id}:in/deep/blob.bin`, back]);
    assert.equal(copyOut.code, 0, copyOut.stderr);
    assert.ok((await readFile(back)).equals(blob));

    // The agent's links: one to a file outside the workspace, one to a directory outside it.
    const plant = await execWhenServing(ws, id, [
      "sh",
      "-c",
      "echo secret > /tmp/outside; ln -s /tmp/outside link-file; ln -s /tmp link-dir",
    ]);
    assert.equal(plant.code, 0, plant.stderr);
    for (const [source, destination, pattern] of [
      [`${id}:../../etc/passwd`, back, /not a path cp takes/],
      [`${id}:/etc/passwd`, back, /an absolute path/],
      [`${id}:link-file`, back, /is a link/],
      [`${id}:link-dir/outside`, back, /not a directory \(a link\?\)/],
      [local, `${id}:link-file`, /not a regular file/],
      [local, `${id}:link-dir/planted`, /not a directory \(a link\?\)/],
    ] as const) {
      const refused = await runCli(ws.dataDir, ["cp", source, destination]);
      assert.notEqual(refused.code, 0, `${source} ${destination}`);
      assert.match(refused.stderr, pattern);
    }
    const outside = await execWhenServing(ws, id, ["sh", "-c", "cat /tmp/outside; ls /tmp"]);
    assert.match(outside.stdout, /^secret\n/);
    assert.doesNotMatch(outside.stdout, /planted/);
    assert.ok(
      (await readFile(back)).equals(blob),
      "a refused copy leaves the destination as it was",
    );

    // A link at the local destination is replaced, never followed.
    const target = join(ws.root, "target.txt");
    await writeFile(target, "mine\n");
    const linked = join(ws.root, "linked");
    await symlink(target, linked);
    const overLink = await runCli(ws.dataDir, ["cp", `${id}:in/deep/blob.bin`, linked]);
    assert.equal(overLink.code, 0, overLink.stderr);
    assert.equal(await readFile(target, "utf8"), "mine\n");
    await assert.rejects(readlink(linked));
  });

  test(
    "shell opens a real terminal that follows resizes and passes Ctrl-C",
    { skip: NO_PYTHON },
    async () => {
      await execWhenServing(ws, id, ["true"]);
      const pty = startInPty([process.execPath, CLI_MAIN, "--data-dir", ws.dataDir, "shell", id], {
        env: cleanEnv({ TERM: "xterm" }),
        rows: 24,
        cols: 80,
      });
      try {
        pty.type("stty size; tty; id -u; echo M-$((40+2))\r");
        await pty.waitFor(/M-42/);
        assert.match(pty.output(), /24 80/);
        assert.match(pty.output(), /\/dev\/pts\/\d+/);
        const uid = (
          await readFile(join(taskWorkspace(ws.dataDir, id), ".agent-facts"), "utf8")
        ).split("\n")[0];
        assert.match(pty.output(), new RegExp(`\\n${uid}\\r*\\n`));

        let mark = pty.output().length;
        pty.resize(40, 120);
        await sleep(300);
        pty.type("stty size; echo R-$((1+1))\r");
        await pty.waitFor(/R-2/, 20_000, mark);
        assert.match(pty.output().slice(mark), /40 120/);

        mark = pty.output().length;
        pty.type("sleep 30; echo never-$((2+2))\r");
        await sleep(1000);
        pty.type("\x03");
        pty.type("echo status=$?\r");
        const status = await pty.waitFor(/status=\d+/, 10_000, mark);
        assert.equal(status, "status=130", "SIGINT ended the sleep");
        assert.doesNotMatch(pty.output().slice(mark), /never-4/);

        pty.type("exit 3\r");
        assert.equal(await pty.exit, 3);
      } finally {
        pty.kill();
      }
      const recorded = await events(ws, id);
      assert.ok(
        recorded.some((e) => e.type === "inside_end" && e.kind === "shell" && e.exitCode === 3),
      );
    },
  );
});

describe("a task that does not allow stepping inside", { skip: NO_SYSTEM }, () => {
  test("refuses exec, shell and cp, and its sandbox has no way in", async () => {
    const ws = await workspace();
    try {
      const id = await waitingTask(ws, []);
      for (const args of [
        ["exec", id, "--", "true"],
        ["shell", id],
        ["cp", `${id}:started`, join(ws.root, "x")],
        ["stop", id],
      ]) {
        const refused = await runCli(
          ws.dataDir,
          [...args, "--json"].filter((a) => a !== "--json" || args[0] === "stop"),
        );
        assert.equal(refused.code === 0, false, args.join(" "));
        if (args[0] !== "shell")
          assert.match(
            refused.stderr + refused.stdout,
            /does not allow stepping inside|not created with --debug/,
          );
      }
      assert.equal(existsSync(join(ws.dataDir, "tasks", id, "egress", "door.sock")), false);
      assert.equal(existsSync(join(ws.dataDir, "tasks", id, "egress", "inside.sock")), false);
      await writeFile(join(taskWorkspace(ws.dataDir, id), "release"), "");
      const wait = await runCli(ws.dataDir, ["wait", id, "--timeout", "60s"]);
      assert.equal(wait.code, 0, wait.stderr);
      assert.ok(!(await events(ws, id)).some((e) => e.type.startsWith("inside")));
    } finally {
      await ws.cleanup();
    }
  });
});

describe("--debug", { skip: NO_SYSTEM }, () => {
  test("keeps the sandbox serving after the agent ends until warden stop, and keeps what was done inside", async () => {
    const ws = await workspace();
    try {
      const id = await startDebugTask(ws, "5m", "echo agent > agent.txt");
      const giveUpAt = Date.now() + 60_000;
      let log = "";
      while (!/debug: the agent has ended/.test(log) && Date.now() < giveUpAt) {
        await sleep(200);
        log = (await runCli(ws.dataDir, ["logs", id])).stdout;
      }
      assert.match(log, /debug: the agent has ended/);
      const exec = await execWhenServing(ws, id, [
        "sh",
        "-c",
        "cat agent.txt; echo person > person.txt",
      ]);
      assert.equal(exec.code, 0, exec.stderr);
      assert.equal(exec.stdout, "agent\n");
      const show = await runCli(ws.dataDir, ["show", id, "--json"]);
      assert.equal((JSON.parse(show.stdout) as { state: string }).state, "running");
      const stop = await runCli(ws.dataDir, ["stop", id]);
      assert.equal(stop.code, 0, stop.stderr);
      const wait = await runCli(ws.dataDir, ["wait", id, "--timeout", "60s"]);
      assert.equal(wait.code, 0, wait.stderr + wait.stdout);
      const diff = await runCli(ws.dataDir, ["diff", id, "--stat"]);
      assert.match(diff.stdout, /agent\.txt/);
      assert.match(diff.stdout, /person\.txt/);
      const recorded = await events(ws, id);
      assert.ok(recorded.some((e) => e.type === "inside" && e.kind === "stop"));
      const late = await runCli(ws.dataDir, ["exec", id, "--", "true"]);
      assert.equal(late.code, 1);
      assert.match(late.stderr, /is succeeded, not running/);
    } finally {
      await ws.cleanup();
    }
  });

  test("a hold nobody stops ends at the deadline", async () => {
    const ws = await workspace();
    try {
      const id = await startDebugTask(ws, "25s", "true");
      const wait = await runCli(ws.dataDir, ["wait", id, "--timeout", "90s", "--json"]);
      assert.equal(wait.code, 3, wait.stdout + wait.stderr);
      const show = JSON.parse((await runCli(ws.dataDir, ["show", id, "--json"])).stdout) as {
        state: string;
        stoppedBy?: string;
      };
      assert.equal(show.state, "failed");
      assert.equal(show.stoppedBy, "deadline");
    } finally {
      await ws.cleanup();
    }
  });
});

// The `warden` command as a script sees it: exit codes, --json shapes, `warden:` / `hint:` on
// errors, ids by unique prefix. Run as a child process: `node dist/cli/warden.cjs`.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { parseAllowEntry } from "../../src/egress/allowList.js";
import { WardenError } from "../../src/protocol/index.js";
import { Tasks } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";
import {
  AWAIT_RELEASE,
  idOf,
  NO_SYSTEM,
  RELEASE_WAIT_SECONDS,
  runArgs,
  runCli,
  taskWorkspace,
  type CliResult,
} from "../e2e/fixtures.js";

const VERBS = [
  "run",
  "create",
  "start",
  "rerun",
  "ls",
  "show",
  "watch",
  "logs",
  "send",
  "approve",
  "approvals",
  "cancel",
  "wait",
  "fetch",
  "diff",
  "rm",
  "gc",
  "doctor",
];

/** Resolves once `done()` is true; fails after RELEASE_WAIT_SECONDS. */
async function until(done: () => boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + RELEASE_WAIT_SECONDS * 1000;
  while (!done()) {
    if (Date.now() > giveUpAt) assert.fail(what);
    await sleep(50);
  }
}

/** The WardenError `act` throws; fails the test when it throws nothing or something else. */
function refusalOf(act: () => unknown): WardenError {
  try {
    act();
  } catch (error) {
    if (error instanceof WardenError) return error;
    throw error;
  }
  assert.fail("nothing was refused");
}

/** An error as the CLI must print it: one `warden:` line, then one `hint:` line. */
function assertError(result: CliResult, code: number, what: RegExp): void {
  assert.equal(result.code, code, result.stdout + result.stderr);
  assert.match(result.stderr, /^warden: .+\nhint: .+\n$/);
  assert.match(result.stderr, what);
}

describeCli("the warden command", (ws) => {
  /** `warden create` of a task in the workspace's repository: `prompt`, then `rest` as given. */
  const create = (prompt: string, ...rest: string[]): string[] => [
    "create",
    "--repo",
    ws.repo,
    "--prompt",
    prompt,
    ...rest,
  ];

  test("every verb explains itself with --help", async () => {
    const results = await Promise.all(VERBS.map((verb) => runCli(ws.dataDir, [verb, "--help"])));
    results.forEach((result, i) => {
      assert.equal(result.code, 0, VERBS[i]);
      assert.match(result.stdout, new RegExp(`^Usage: warden ${VERBS[i] ?? ""}`), VERBS[i]);
    });
    const top = await runCli(ws.dataDir, ["--help"]);
    for (const verb of VERBS) assert.match(top.stdout, new RegExp(`\\n  ${verb}\\b`));
  });

  test("usage errors exit 2 with a warden: line and a hint", async () => {
    assertError(await runCli(ws.dataDir, ["run", "--bogus"]), 2, /unknown option '--bogus'/);
    assertError(await runCli(ws.dataDir, ["frobnicate"]), 2, /unknown command/);
    assertError(
      await runCli(ws.dataDir, ["run", "--agent", "command", "--repo", ws.repo, "--prompt", "x"]),
      2,
      /the command agent needs a command/,
    );
    assertError(
      await runCli(ws.dataDir, ["run", "--agent", "claude", "--prompt", "x", "--", "true"]),
      2,
      /the claude agent takes no command/,
    );
    // A setting the agent does not take is refused in the flag's own words.
    for (const [agent, flag, value] of [
      ["codex", "--max-turns", "3"],
      ["gemini", "--approve", "prompt"],
      ["gemini", "--append-system-prompt", "be brief"],
    ] as const) {
      assertError(
        await runCli(ws.dataDir, create("x", "--agent", agent, flag, value)),
        2,
        new RegExp(`the ${agent} agent takes no ${flag}`),
      );
    }
    assertError(await runCli(ws.dataDir, create("x", "--approve", "sometimes")), 2, /sometimes/);
    assertError(
      await runCli(ws.dataDir, create("x", "--allow-tool", "(Bash)")),
      2,
      /--allow-tool \(Bash\): not a tool name/,
    );
    assertError(
      await runCli(ws.dataDir, create("x", "--deny-tool", "Write", "--", "true")),
      2,
      /the command agent asks warden no permissions/,
    );
    assertError(
      await runCli(ws.dataDir, ["approve", "0000", "1", "maybe"]),
      2,
      /neither allow nor deny/,
    );
    assertError(
      await runCli(ws.dataDir, ["send", "0000", "hi", "--timeout", "1s"]),
      2,
      /--timeout goes with --await/,
    );
    assertError(
      await runCli(ws.dataDir, runArgs(ws.repo, "x", ["--timeout", "soon"], ["true"])),
      2,
      /--timeout soon is not a number of seconds/,
    );
    // Without --json the CLI prints no code, so the error it printed is matched whole against
    // the one the allow list raises for the entry: a BAD_ALLOW_ENTRY, which is a usage error.
    const allowed = await runCli(ws.dataDir, create("x", "--allow", "*.com", "--", "true"));
    assertError(
      allowed,
      2,
      /^warden: the allow-list entry "\*\.com" would allow every name under a top-level domain\n/,
    );
    const expected = refusalOf(() => parseAllowEntry("*.com"));
    assert.equal(expected.code, "BAD_ALLOW_ENTRY");
    assert.equal(allowed.stderr, `warden: ${expected.message}\nhint: ${expected.hint ?? ""}\n`);
    assertError(
      await runCli(ws.dataDir, [
        "create",
        "--repo",
        join(ws.root, "nowhere"),
        "--prompt",
        "x",
        "--",
        "true",
      ]),
      2,
      /no such directory/,
    );
    // git's identity is read while the start is resolved: a directory that is no repository is
    // refused as such, never by the identity's read.
    const plain = join(ws.root, "plain");
    mkdirSync(plain, { recursive: true });
    assertError(
      await runCli(ws.dataDir, ["create", "--repo", plain, "--prompt", "x", "--", "true"]),
      2,
      /is not a git repository/,
    );
    assertError(
      await runCli(ws.dataDir, [
        "create",
        "--repo",
        ws.repo,
        "--from",
        "no-such-branch",
        "--prompt",
        "x",
        "--",
        "true",
      ]),
      2,
      /is not a commit/,
    );
    assertError(
      await runCli(ws.dataDir, create("x", "--env", "ANTHROPIC_API_KEY", "--", "true")),
      2,
      /warden sets this variable itself/,
    );
    assertError(
      await runCli(ws.dataDir, ["create", "--repo", ws.repo, "--prompt", "   ", "--", "true"]),
      2,
      /the prompt is empty/,
    );
    const tasks = await Tasks.open({ dataDir: ws.dataDir });
    assert.deepEqual(await tasks.list(), [], "a refused command writes no task");
  });

  test("a bad id exits 2; an ambiguous prefix exits 2 naming the candidates", async () => {
    assertError(await runCli(ws.dataDir, ["show", "nope!"]), 2, /is not a task id/);
    assertError(await runCli(ws.dataDir, ["show", "0123456789abcdefghjkmnpqrs"]), 2, /no task/);
    const tasks = await Tasks.open({ dataDir: ws.dataDir, now: () => 1_800_000_000_000 });
    const a = await tasks.create({ prompt: "a", parent: null });
    const b = await tasks.create({ prompt: "b", parent: null });
    const prefix = a.id.slice(0, 10);
    assert.equal(b.id.slice(0, 10), prefix, "ids made in the same millisecond share a prefix");
    const ambiguous = await runCli(ws.dataDir, ["show", prefix]);
    assertError(
      ambiguous,
      2,
      new RegExp(`matches 2 tasks: .*${a.id}.*${b.id}|matches 2 tasks: .*${b.id}.*${a.id}`),
    );
    const later = await Tasks.open({ dataDir: ws.dataDir, now: () => 1_900_000_000_000 });
    const c = await later.create({ prompt: "c", parent: null });
    const unique = await runCli(ws.dataDir, ["show", c.id.slice(0, 6), "--json"]);
    assert.equal(unique.code, 0, unique.stderr);
    assert.equal((JSON.parse(unique.stdout) as { id: string }).id, c.id);
    const removed = await runCli(ws.dataDir, ["rm", a.id, b.id, c.id, "--json"]);
    assert.deepEqual((JSON.parse(removed.stdout) as { removed: string[] }).removed.length, 3);
  });

  test("create prints an id, --json an object with id, state and base; wait times out with 3", async () => {
    const created = await runCli(ws.dataDir, create("later", "--", "true"));
    assert.equal(created.code, 0, created.stderr);
    const id = idOf(created);
    const json = await runCli(ws.dataDir, create("later", "--json", "--", "true"));
    const view = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(view.state, "created");
    assert.equal(view.base, ws.head);
    assert.match(String(view.id), /^[0-9a-z]{26}$/);

    const wait = await runCli(ws.dataDir, ["wait", id, "--timeout", "1s"]);
    assertError(wait, 3, /has not finished after 1s/);

    const cancel = await runCli(ws.dataDir, ["cancel", id, "--json"]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.deepEqual((JSON.parse(cancel.stdout) as { recorded: string[] }).recorded, [id]);
    const waited = await runCli(ws.dataDir, ["wait", id, "--json"]);
    assert.equal(waited.code, 1);
    assert.equal((JSON.parse(waited.stdout) as { state: string }).state, "cancelled");
    assertError(await runCli(ws.dataDir, ["start", id]), 1, /has finished \(cancelled\)/);
    assertError(await runCli(ws.dataDir, ["send", id, "hello"]), 1, /finished/);
    const ls = await runCli(ws.dataDir, ["ls", "--json", "--state", "cancelled"]);
    assert.ok((JSON.parse(ls.stdout) as { id: string }[]).some((t) => t.id === id));
  });

  test("fetch and diff of a task that has not run are refused", async () => {
    const created = await runCli(ws.dataDir, create("x", "--", "true"));
    const id = idOf(created);
    assertError(await runCli(ws.dataDir, ["fetch", id]), 1, /is created, so it has no results yet/);
    assertError(await runCli(ws.dataDir, ["diff", id]), 1, /is created/);
    assertError(await runCli(ws.dataDir, ["logs", id]), 1, /has no guest\.log/);
  });

  describe("with a sandbox", { skip: NO_SYSTEM }, () => {
    test("a task that succeeds exits 0 and its --json has id, state, base and head", async () => {
      const run = await runCli(
        ws.dataDir,
        runArgs(
          ws.repo,
          "commit",
          ["--json"],
          [
            "sh",
            "-c",
            "printf 'tab\\there \\033[31mred\\n' > hi.txt; echo '{\"result\":\"wrote hi\"}'",
          ],
        ),
      );
      assert.equal(run.code, 0, run.stderr);
      const view = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.equal(view.state, "succeeded");
      assert.equal(view.stoppedBy, null, "a finished task always has stoppedBy");
      assert.equal(view.base, ws.head);
      assert.match(String(view.head), /^[0-9a-f]{40}$/);
      assert.notEqual(view.head, ws.head);
      assert.equal(view.summary, "wrote hi");
      const id = String(view.id);

      const show = await runCli(ws.dataDir, ["show", id, "--json"]);
      const shown = JSON.parse(show.stdout) as Record<string, unknown>;
      assert.equal(shown.head, view.head);
      assert.deepEqual((shown.settings as { command: string[] }).command.slice(0, 2), ["sh", "-c"]);

      const diff = await runCli(ws.dataDir, ["diff", id]);
      assert.equal(diff.code, 0);
      assert.match(diff.stdout, /^\+tab here \?\[31mred$/m, "the diff is cleaned");
      const transcript = await runCli(ws.dataDir, ["logs", id, "--transcript"]);
      assert.equal(transcript.stdout, '{"result":"wrote hi"}\n');
      const watch = await runCli(ws.dataDir, ["watch", id, "--json"]);
      assert.equal(watch.code, 0);
      const events = watch.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string });
      assert.equal(events.at(-1)?.type, "finished");
    });

    test("an agent that fails exits 1; a task stopped at its deadline exits 3", async () => {
      const failed = await runCli(ws.dataDir, runArgs(ws.repo, "x", [], ["sh", "-c", "exit 4"]));
      assert.equal(failed.code, 1, failed.stderr);
      assert.match(failed.stdout, /failed: the agent exited with code 4/);
      const late = await runCli(
        ws.dataDir,
        runArgs(ws.repo, "x", ["--deadline", "2s", "--json"], ["sleep", "60"]),
      );
      assert.equal(late.code, 3, late.stderr);
      const view = JSON.parse(late.stdout) as Record<string, unknown>;
      assert.equal(view.state, "failed");
      assert.equal(view.stoppedBy, "deadline");
      const wait = await runCli(ws.dataDir, ["wait", String(view.id)]);
      assert.equal(wait.code, 3);
    });

    test("a run or create whose --env variable is not set is refused before any task is made", async () => {
      const before = (await runCli(ws.dataDir, ["ls", "-q"])).stdout;
      for (const verb of ["run", "create"]) {
        const args = runArgs(ws.repo, "x", ["--env", "CLI_TEST_UNSET_VARIABLE"], ["true"]);
        const refused = await runCli(ws.dataDir, [verb, ...args.slice(1)]);
        assertError(
          refused,
          1,
          /the task passes the variable CLI_TEST_UNSET_VARIABLE in, but it is not set here/,
        );
        assert.equal(refused.stdout, "", verb);
      }
      assert.equal((await runCli(ws.dataDir, ["ls", "-q"])).stdout, before, "no task was made");
    });

    test("run --detach prints the id at once and the task runs in the background", async () => {
      // The agent waits for a file the test makes only after `run --detach` has returned, so a
      // detach that waited for the task would return only once the agent gave up and failed.
      const run = await runCli(
        ws.dataDir,
        runArgs(ws.repo, "x", ["--detach"], ["sh", "-c", AWAIT_RELEASE]),
      );
      assert.equal(run.code, 0, run.stderr);
      const id = idOf(run);
      const shown = await runCli(ws.dataDir, ["show", id, "--json"]);
      assert.equal((JSON.parse(shown.stdout) as { state: string }).state, "running");
      const workspace = taskWorkspace(ws.dataDir, id);
      await until(() => existsSync(join(workspace, "started")), "the agent never started");
      writeFileSync(join(workspace, "release"), "");
      const wait = await runCli(ws.dataDir, ["wait", id, "--timeout", "60s", "--json"]);
      assert.equal(wait.code, 0, wait.stderr);
      assert.equal((JSON.parse(wait.stdout) as { state: string }).state, "succeeded");
      const hostLog = await runCli(ws.dataDir, ["logs", id, "--host-log"]);
      assert.match(hostLog.stdout, /succeeded/);
    });

    test("doctor reports bwrap usable and exits 0", async () => {
      const doctor = await runCli(ws.dataDir, ["doctor", "--json"]);
      assert.equal(doctor.code, 0, doctor.stdout);
      const report = JSON.parse(doctor.stdout) as {
        ready: boolean;
        backends: { name: string; ok: boolean }[];
      };
      assert.equal(report.ready, true);
      assert.ok(report.backends.some((b) => b.name === "bwrap" && b.ok));
      assert.ok(report.backends.some((b) => b.name === "none"));
    });
  });
});

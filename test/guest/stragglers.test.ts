// Nothing an agent starts may outlive it: not its process group, not a double-forked daemon in
// a session of its own, and (with a PID namespace of its own) not one that hid its marker.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ProcessTable } from "../../src/guest/processTable.js";
import { makeTask, runGuest, shellAgent, type TaskFixture, receivedOf } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";

const table = new ProcessTable();

/** Next to the workspace, where neither the leftovers commit nor the bundle sees it. */
const PID_FILE = "../daemon.pid";

/**
 * An agent that starts a daemon the classic way (fork, setsid, fork) and exits at once. The
 * daemon runs `setup`, then writes its pid beside the workspace (the agent exits once it is
 * there), keeps the agent's stdout and stderr open, and runs `body`; `prefix` comes before
 * setsid. Whatever must be in place before the runner can signal the daemon belongs in `setup`.
 */
function daemonAgent(body: string, prefix = "", setup = ":"): string[] {
  return shellAgent(
    [
      `( ${prefix} setsid sh -c '${setup}; echo $$ > "$1.tmp" && mv "$1.tmp" "$1"; ${body}' daemon "$1" & )`,
      'while [ ! -s "$1" ]; do sleep 0.02; done',
      "echo agent done",
    ].join("; "),
    PID_FILE,
  );
}

async function pidIn(fixture: TaskFixture): Promise<number> {
  return Number((await readFile(join(fixture.workspace, PID_FILE), "utf8")).trim());
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone, as it should be.
  }
}

test("a double-forked setsid sleeper is stopped before the runner goes on", async (t) => {
  const fixture = await makeTask({ settings: { command: daemonAgent("exec sleep 1000") } });
  t.after(() => fixture.cleanup());
  const run = await runGuest(fixture, { args: ["--kill-grace-ms", "2000"] });
  const pid = await pidIn(fixture);
  t.after(() => {
    killQuietly(pid);
  });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(table.alive(pid), false, `the sleeper ${pid} no longer runs`);
  assert.match(run.stderr, new RegExp(`stopped what the agent left running: ${pid} \\(sleep\\)`));
  assert.deepEqual(receivedOf(run).result.warnings, []);
  const transcript = receivedOf(run).files["transcript.jsonl"];
  assert.ok(transcript);
  assert.equal(await readFile(transcript.path, "utf8"), "agent done\n");
});

test("without a PID namespace, a daemon that dropped the marker is named by what it holds", async (t) => {
  // The daemon leaves the process group and clears the marker, so the runner cannot find it;
  // it keeps the agent's stdout open, and the runner must neither hang nor keep quiet.
  const fixture = await makeTask({
    settings: { command: daemonAgent("exec sleep 1000", "env -u WARDEN_GUEST_RUN") },
  });
  t.after(() => fixture.cleanup());
  const run = await runGuest(fixture, { args: ["--kill-grace-ms", "500"] });
  const pid = await pidIn(fixture);
  t.after(() => {
    killQuietly(pid);
  });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.ok(
    receivedOf(run).result.warnings.some((w) => /still held the agent's output open/.test(w)),
    JSON.stringify(receivedOf(run).result.warnings),
  );
  assert.equal(table.alive(pid), true, "the hidden daemon did escape, as documented");
});

const bwrap = spawnSync("bwrap", [
  "--dev-bind",
  "/",
  "/",
  "--unshare-pid",
  "--proc",
  "/proc",
  "true",
]);
const noBwrap = skipWhen(
  bwrap.error !== undefined || bwrap.status !== 0
    ? `bwrap cannot make a PID namespace here: ${bwrap.error?.message ?? bwrap.stderr.toString()}`
    : false,
);

test(
  "with a PID namespace of its own, even a daemon without the marker gets SIGTERM",
  { skip: noBwrap },
  async (t) => {
    // The daemon writes a file when SIGTERM reaches it, which only the runner sends: the
    // kernel ends a PID namespace with SIGKILL.
    const fixture = await makeTask({
      settings: {
        command: daemonAgent(
          "while :; do sleep 0.05; done",
          "env -u WARDEN_GUEST_RUN",
          // The trap is set before the pid is written: the agent exits once the pid is
          // there, and a SIGTERM before the trap would end the daemon without a word.
          'trap "echo term > ../daemon-got-term; exit 0" TERM',
        ),
      },
    });
    t.after(() => fixture.cleanup());
    const run = await runGuest(fixture, {
      args: ["--own-pid-namespace", "--kill-grace-ms", "2000"],
      wrap: (argv) => [
        "bwrap",
        "--dev-bind",
        "/",
        "/",
        "--unshare-pid",
        "--proc",
        "/proc",
        "--die-with-parent",
        "--",
        ...argv,
      ],
    });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(await readFile(join(fixture.root, "daemon-got-term"), "utf8"), "term\n");
    assert.match(run.stderr, /stopped what the agent left running: [0-9]+ \(sh\)/);
    assert.deepEqual(receivedOf(run).result.warnings, []);
  },
);

test("told it has a PID namespace while it has none, the runner kills only the agent's", async (t) => {
  const fixture = await makeTask({ settings: { command: daemonAgent("exec sleep 1000") } });
  t.after(() => fixture.cleanup());
  const run = await runGuest(fixture, { args: ["--own-pid-namespace", "--kill-grace-ms", "500"] });
  const pid = await pidIn(fixture);
  t.after(() => {
    killQuietly(pid);
  });
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(table.alive(pid), false);
  assert.ok(
    receivedOf(run).result.warnings.some((w) => /runs in the host's/.test(w)),
    JSON.stringify(receivedOf(run).result.warnings),
  );
});

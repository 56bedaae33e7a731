// warden run by an ordinary user: its sandboxes are that user, never root, and a bound it
// cannot apply is refused. When the suite runs as root, a test user is made and each run is
// started as it; the judging is done from the host side, as root.
import { strict as assert } from "node:assert";
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, test } from "node:test";
import { skipWhen } from "../support/skipWhen.js";
import { makeRepo } from "../support/share.js";
import { CLI_MAIN } from "../e2e/fixtures.js";
import {
  assertLeftBy,
  assertProcRefused,
  hostValues,
  leftInWorkspace,
  parseReport,
  type LeftEntry,
  type ProbeReport,
} from "./privilegeProbe.js";
import { FIXTURES, NEEDS_BWRAP, type Finished, type TaskDirs } from "./sandboxFixture.js";
import { assertRunsAs, groupsOf, sandboxedProcesses, type HostView } from "./sandboxProcesses.js";
import {
  giveTo,
  ordinaryUser,
  spawnAsUser,
  type TestUser,
  type TestUserOutcome,
} from "./testUser.js";

const FIXTURE = join(FIXTURES, "ordinaryUser.mts");

/** A run as the user that has not ended by then has hung: it is killed and the test fails. */
const RUN_MS = 120_000;

interface UserProbe {
  pid: number;
  processes: HostView[];
  starterGroups: number[];
  run: Finished;
  report: ProbeReport;
  workspace: string;
  left: LeftEntry[];
  valuesBefore: Map<string, string | null>;
  valuesAfter: Map<string, string | null>;
}

/** The user the runs are made as; made here when the suite runs as root. */
const outcome: TestUserOutcome =
  NEEDS_BWRAP === false ? await ordinaryUser() : { ok: false, why: NEEDS_BWRAP };
const NO_USER = skipWhen(outcome.ok ? false : outcome.why);

describe("an ordinary user's sandbox, seen from the host", { skip: NEEDS_BWRAP || NO_USER }, () => {
  const started: ChildProcess[] = [];
  const made: string[] = [];
  let probeRun: Promise<UserProbe> | undefined;

  after(async () => {
    for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  /** The user; where none could be made the describe block skips, and in CI this fails. */
  function theUser(): TestUser {
    if (!outcome.ok) assert.fail(outcome.why);
    return outcome.user;
  }

  /** A share and a workspace that the user owns. */
  async function dirsFor(user: TestUser): Promise<TaskDirs> {
    const root = await mkdtemp("/tmp/warden-user-test-");
    made.push(root);
    const dirs = { root, share: join(root, "share"), workspace: join(root, "workspace") };
    await mkdir(dirs.share, { mode: 0o700 });
    await mkdir(dirs.workspace, { mode: 0o700 });
    for (const name of ["task.json", "prompt.md", "input.bundle"]) {
      await writeFile(join(dirs.share, name), "", { mode: 0o600 });
    }
    await giveTo(root, user);
    return dirs;
  }

  /** Runs the fixture as the user; `onLine` sees each JSON line it prints. */
  async function runFixture(
    user: TestUser,
    args: string[],
    onLine: (value: Record<string, unknown>, child: ChildProcess) => Promise<void> | void,
  ): Promise<{ code: number | null; stderr: string }> {
    const child = spawnAsUser(user, ["--import", "tsx", FIXTURE, ...args]);
    started.push(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_MS);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        await onLine(JSON.parse(line) as Record<string, unknown>, child);
      }
      return { code: await exited, stderr };
    } finally {
      clearTimeout(timer);
      child.kill("SIGKILL");
    }
  }

  /** The privilege probe, run once as the user and shared by the tests that judge it. */
  function probeAsUser(user: TestUser): Promise<UserProbe> {
    probeRun ??= (async () => {
      const dirs = await dirsFor(user);
      const valuesBefore = await hostValues();
      const seen: Partial<UserProbe> = {};
      const { code, stderr } = await runFixture(
        user,
        ["probe", dirs.root],
        async (value, child) => {
          if (typeof value.running === "number") {
            seen.pid = value.running;
            seen.processes = await sandboxedProcesses(value.running);
            seen.starterGroups = await groupsOf(child.pid ?? 0);
            child.stdin?.end();
          }
          if (value.finished !== undefined) seen.run = value.finished as Finished;
        },
      );
      assert.equal(code, 0, `the fixture failed: ${stderr}`);
      const { pid, processes, starterGroups, run } = seen;
      assert.ok(pid !== undefined && processes !== undefined && starterGroups !== undefined);
      assert.ok(run !== undefined, `the fixture reported no run: ${stderr}`);
      return {
        pid,
        processes,
        starterGroups,
        run,
        report: parseReport(run.stdout),
        workspace: dirs.workspace,
        left: await leftInWorkspace(dirs.workspace),
        valuesBefore,
        valuesAfter: await hostValues(),
      };
    })();
    return probeRun;
  }

  test("the host's uid and gid maps of every sandbox process name the user's ids, never 0, and what the task leaves is the user's", async () => {
    const user = theUser();
    const probe = await probeAsUser(user);
    assert.equal(probe.run.exit.code, 0, probe.run.stderr);
    assertRunsAs(probe.processes, { uid: user.uid, gid: user.gid, groups: probe.starterGroups });
    assert.equal(probe.report.value("wrote"), "ok", probe.run.stderr);
    assert.equal(probe.report.value("chown-root"), "refused", "the task gave a file to root");
    assertLeftBy(probe.left, probe.workspace, user);
  });

  test("as the user, no /proc/sys file opens for writing inside, nor /proc/sysrq-trigger", async () => {
    const user = theUser();
    const probe = await probeAsUser(user);
    assertProcRefused(probe.report, probe.valuesBefore, probe.valuesAfter);
  });

  test("as the user, the default bounds are applied where it has a cgroup and refused with BOUND_UNAVAILABLE and a hint where not, never run unbounded", async () => {
    const user = theUser();
    const dirs = await dirsFor(user);
    let said: Record<string, unknown> = {};
    const { code, stderr } = await runFixture(user, ["bounds", dirs.root], (value) => {
      said = value;
    });
    assert.equal(code, 0, `the fixture failed: ${stderr}`);
    const cgroups = said.cgroups as Record<string, { ok: boolean }> | undefined;
    if (cgroups?.memory?.ok === true && cgroups.pids?.ok === true) {
      // This user has a cgroup of its own: the bounds are applied, and the sandbox runs.
      assert.ok(
        said.started !== undefined,
        `bounds ${user.name} can apply were refused: ${JSON.stringify(said)}`,
      );
      return;
    }
    const refused = said.refused as { code?: string; message?: string; hint?: string } | undefined;
    assert.ok(
      refused !== undefined,
      `a bounded sandbox started as ${user.name}: ${JSON.stringify(said)}`,
    );
    assert.equal(refused.code, "BOUND_UNAVAILABLE", refused.message);
    assert.match(refused.message ?? "", /memory|process/);
    assert.match(refused.hint ?? "", /--memory 0/);
  });

  test("as the user, `warden run` with the default bounds is refused before the task runs, with what to do", async () => {
    const user = theUser();
    const root = await mkdtemp("/tmp/warden-user-cli-");
    made.push(root);
    const repo = join(root, "repo");
    await makeRepo(repo);
    await giveTo(root, user);
    const cli = (args: string[]): Promise<{ code: number | null; out: string; err: string }> => {
      const child = spawnAsUser(user, [CLI_MAIN, "--data-dir", join(root, "data"), ...args]);
      started.push(child);
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
      return new Promise((resolve) =>
        child.once("close", (code) => {
          resolve({ code, out, err });
        }),
      );
    };
    const refused = await cli(["run", "--repo", repo, "--prompt", "hi", "--", "true"]);
    assert.equal(refused.code, 1, refused.err);
    assert.match(refused.err, /^warden: .*cannot apply the memory bound/m);
    assert.match(refused.err, /^hint: .*--memory 0/m);
    const list = await cli(["ls", "--json"]);
    const tasks = JSON.parse(list.out) as { state: string }[];
    assert.deepEqual(
      tasks.map((t) => t.state),
      [],
      "the refused run left a task behind: its bounds are checked before the task is made",
    );
    const asked = await cli([
      "run",
      "--repo",
      repo,
      "--prompt",
      "hi",
      "--memory",
      "0",
      "--max-processes",
      "0",
      "--",
      "true",
    ]);
    assert.equal(asked.code, 0, asked.err);
  });

  // When the suite runs as an ordinary user already, that user is the suite's own and the escape
  // tests run again as it here: the claim holds in both modes, so neither skips.
  test("as the user, every escape test still holds", async () => {
    const user = theUser();
    const child = spawnAsUser(user, [
      "--import",
      "tsx",
      "--test",
      "--test-reporter=tap",
      join("test", "sandbox", "escape.test.ts"),
    ]);
    started.push(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_MS);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    const count = (name: string): number =>
      Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(out)?.[1]);
    assert.equal(code, 0, out);
    assert.ok(count("tests") >= 12, `only ${count("tests")} escape tests ran:\n${out}`);
    assert.equal(count("pass"), count("tests"), out);
    assert.equal(count("skipped"), 0, out);
  });
});

// A root warden's sandboxes run as a dedicated host uid, never root: judged from the host side,
// where the kernel's own view of a process's ids can be read.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { sandboxBackend, type RunningSandbox } from "../../src/sandbox/index.js";
import { SANDBOX_LIMITS } from "../../src/sandbox/limits.js";
import type { BwrapBackend } from "../../src/sandbox/bwrapBackend.js";
import { probeSandboxIdentity, sandboxIdentity } from "../../src/sandbox/sandboxIdentity.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";
import {
  assertLeftBy,
  assertProcRefused,
  hostValues,
  leftInWorkspace,
  parseReport,
  probeRequest,
  runProbe,
  type LeftEntry,
  type ProbeReport,
} from "./privilegeProbe.js";
import { makeTaskDirs, NEEDS_BWRAP, removeTaskDirs, type Finished } from "./sandboxFixture.js";
import { assertRunsAs, groupsOf, sandboxedProcesses, type HostView } from "./sandboxProcesses.js";

const NEEDS_ROOT: SkipReason =
  NEEDS_BWRAP !== false
    ? NEEDS_BWRAP
    : skipWhen(
        process.getuid?.() === 0
          ? false
          : "these are a root warden's sandboxes: run as root to test the dedicated uid (ordinaryUser.test.ts covers this user)",
      );

describe("which host uid a sandbox runs as", () => {
  const root = { processUid: 0, processGid: 0 };

  test("as root with no WARDEN_SANDBOX_UID, the dedicated uid and gid, never root's", () => {
    assert.deepEqual(sandboxIdentity({ ...root, configured: undefined }), {
      kind: "dedicated",
      uid: SANDBOX_LIMITS.dedicatedUid,
      gid: SANDBOX_LIMITS.dedicatedUid,
    });
    assert.notEqual(SANDBOX_LIMITS.dedicatedUid, 0);
  });

  test("as root, WARDEN_SANDBOX_UID=UID:GID and =UID are honoured", () => {
    assert.deepEqual(sandboxIdentity({ ...root, configured: "2000000:2000001" }), {
      kind: "dedicated",
      uid: 2_000_000,
      gid: 2_000_001,
    });
    assert.deepEqual(sandboxIdentity({ ...root, configured: " 3000 " }), {
      kind: "dedicated",
      uid: 3000,
      gid: 3000,
    });
  });

  test("as root, a WARDEN_SANDBOX_UID of uid or gid 0, or that is not UID[:GID], is refused with a hint", () => {
    for (const configured of ["0", "0:5000", "5000:0", "00", "root", "-1", "1:2:3", "4294967295"]) {
      assert.throws(
        () => sandboxIdentity({ ...root, configured }),
        (error: Error & { code?: string; hint?: string }) => {
          assert.equal(error.code, "BAD_SANDBOX_IDENTITY", `${configured}: ${error.message}`);
          assert.match(error.hint ?? "", /WARDEN_SANDBOX_UID|unprivileged id/);
          return true;
        },
        `WARDEN_SANDBOX_UID=${configured} was accepted`,
      );
    }
  });

  test("as an ordinary user, the sandbox is that user, and a WARDEN_SANDBOX_UID naming another uid is refused", () => {
    const user = { processUid: 1234, processGid: 1235 };
    const own = { kind: "own", uid: 1234, gid: 1235 };
    assert.deepEqual(sandboxIdentity({ ...user, configured: undefined }), own);
    assert.deepEqual(sandboxIdentity({ ...user, configured: "1234" }), own);
    for (const configured of ["0", "5000", "5000:5000"]) {
      assert.throws(() => sandboxIdentity({ ...user, configured }), {
        code: "BAD_SANDBOX_IDENTITY",
        message: /cannot switch users/,
      });
    }
  });
});

interface ProbeRun {
  workspace: string;
  processes: HostView[];
  run: Finished;
  report: ProbeReport;
  left: LeftEntry[];
  valuesBefore: Map<string, string | null>;
  valuesAfter: Map<string, string | null>;
}

describe("a root warden's sandbox, seen from the host", { skip: NEEDS_ROOT }, () => {
  const made: string[] = [];
  let probe: ProbeRun;

  /** Runs the privilege probe in a fresh workspace with `backend` and reads the outcome. */
  async function runWith(backend: BwrapBackend): Promise<ProbeRun> {
    const dirs = await makeTaskDirs();
    made.push(dirs.root);
    const valuesBefore = await hostValues();
    // This process holds root's group 0 while it starts the sandbox: a sandbox that kept its
    // starter's supplementary groups would show it.
    const groups = await groupsOf(process.pid);
    process.setgroups?.([0]);
    let sandbox: RunningSandbox;
    try {
      sandbox = await backend.start(probeRequest(dirs));
    } finally {
      process.setgroups?.(groups);
    }
    const { seen, run } = await runProbe(sandbox, dirs.workspace, sandboxedProcesses);
    return {
      workspace: dirs.workspace,
      processes: seen,
      run,
      report: parseReport(run.stdout),
      left: await leftInWorkspace(dirs.workspace),
      valuesBefore,
      valuesAfter: await hostValues(),
    };
  }

  before(async () => {
    probe = await runWith(sandboxBackend("bwrap"));
  });
  after(async () => {
    for (const root of made) await removeTaskDirs({ root, share: "", workspace: "" });
  });

  test("the host's uid and gid maps of every sandbox process name the dedicated uid, never 0, and so do its ids", () => {
    assert.equal(probe.run.exit.code, 0, probe.run.stderr);
    const uid = SANDBOX_LIMITS.dedicatedUid;
    assertRunsAs(probe.processes, { uid, gid: uid, groups: [] });
  });

  test("what the task writes, and a shell it copies and makes setuid, are the dedicated uid's on the host, never root's", () => {
    const uid = SANDBOX_LIMITS.dedicatedUid;
    assert.equal(probe.report.value("wrote"), "ok", probe.run.stderr);
    assert.equal(probe.report.value("chown-root"), "refused", "the task gave a file to root");
    assertLeftBy(probe.left, probe.workspace, { uid, gid: uid });
  });

  test("no /proc/sys file opens for writing inside, nor /proc/sysrq-trigger, and the host's values stay", () => {
    assertProcRefused(probe.report, probe.valuesBefore, probe.valuesAfter);
  });

  test("WARDEN_SANDBOX_UID=UID:GID puts the sandbox and its files on that uid and gid", async () => {
    const [uid, gid] = [SANDBOX_LIMITS.dedicatedUid + 7, SANDBOX_LIMITS.dedicatedUid + 9];
    // The backend reads the variable once, when it is made, as warden does at its start.
    const saved = process.env.WARDEN_SANDBOX_UID;
    let backend: BwrapBackend;
    process.env.WARDEN_SANDBOX_UID = `${uid}:${gid}`;
    try {
      backend = sandboxBackend("bwrap");
    } finally {
      if (saved === undefined) delete process.env.WARDEN_SANDBOX_UID;
      else process.env.WARDEN_SANDBOX_UID = saved;
    }
    const other = await runWith(backend);
    assert.equal(other.run.exit.code, 0, other.run.stderr);
    assertRunsAs(other.processes, { uid, gid, groups: [] });
    assertLeftBy(other.left, other.workspace, { uid, gid });
  });

  test("a root warden probes its sandboxes' identity as the dedicated one", () => {
    assert.deepEqual(probeSandboxIdentity({}), {
      kind: "dedicated",
      uid: SANDBOX_LIMITS.dedicatedUid,
      gid: SANDBOX_LIMITS.dedicatedUid,
    });
  });
});

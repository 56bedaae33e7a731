// A task that reaches for host privilege (a setuid file, root's ownership, /proc/sys), and what
// the host reads afterwards to judge it: the same probe runs as root and as an ordinary user.
import { strict as assert } from "node:assert";
import { lstat, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { RunningSandbox, SandboxRequest } from "../../src/sandbox/index.js";
import { finish, request, shell, waitFor, type Finished, type TaskDirs } from "./sandboxFixture.js";

/** Files the host must never let a task open for writing; absent ones are named too. */
export const PROC_TARGETS = [
  "/proc/sys/kernel/printk_ratelimit_burst",
  "/proc/sys/kernel/core_pattern",
  "/proc/sys/kernel/modprobe",
  "/proc/sysrq-trigger",
];

/** What the probe leaves in the workspace, relative to it. */
export const LEFT = {
  file: "left.txt",
  dir: "made",
  nested: "made/inner.txt",
  setuid: "setuid-copy",
};

/** The set-user-id bit of a file's mode (<sys/stat.h>), which Node's constants lack. */
const S_ISUID = 0o4000;

/** The host writes this into the workspace once it has looked at the running sandbox. */
const GO = "go";

/** The probe waits at most this long (tenths of a second) for GO, so it can never hang. */
const WAIT_TENTHS = 600;

/**
 * The probe. `: >> FILE` opens FILE for appending and writes nothing, so even an open that
 * wrongly succeeds changes no setting. The report goes to stdout only after GO, so that the
 * "ready" line the host waits for is the last thing before it.
 */
const SCRIPT = `
r=/tmp/probe-report
: > $r
echo task > ${LEFT.file} && echo "wrote	ok" >> $r
mkdir ${LEFT.dir} && echo x > ${LEFT.nested}
cp /bin/sh ${LEFT.setuid} && chmod u+s ${LEFT.setuid}; echo "chmod-setuid	$?" >> $r
if chown 0:0 ${LEFT.setuid} 2>/dev/null; then echo "chown-root	done" >> $r; else echo "chown-root	refused" >> $r; fi
for f in ${PROC_TARGETS.join(" ")}; do
  if err=$(sh -c ': >> "$1"' sh "$f" 2>&1); then echo "open	$f	OPENED" >> $r; else echo "open	$f	$err" >> $r; fi
done
files=0; opened=0
for f in $(find /proc/sys -type f 2>/dev/null); do
  files=$((files + 1))
  if { true >> "$f"; } 2>/dev/null; then opened=$((opened + 1)); echo "sweep-opened	$f" >> $r; fi
done
echo "sweep-files	$files" >> $r
echo "sweep-opened-count	$opened" >> $r
echo ready
i=0
while [ ! -e ${GO} ] && [ $i -lt ${WAIT_TENTHS} ]; do sleep 0.1; i=$((i + 1)); done
cat $r
`;

/** A request that runs the probe in `dirs`, whose workspace must be empty. */
export function probeRequest(dirs: TaskDirs, more: Partial<SandboxRequest> = {}): SandboxRequest {
  return request(dirs, shell(SCRIPT), more);
}

/**
 * Waits for the probe to be ready, lets `whileRunning` look at it from the host, then lets it
 * finish. A sandbox left running by a failure is killed before this returns.
 */
export async function runProbe<T>(
  sandbox: RunningSandbox,
  workspace: string,
  whileRunning: (pid: number) => Promise<T>,
): Promise<{ seen: T; run: Finished }> {
  try {
    await waitFor(sandbox.stdout, "ready\n");
    const seen = await whileRunning(sandbox.pid);
    await writeFile(join(workspace, GO), "");
    const run = await finish(sandbox);
    return { seen, run };
  } finally {
    await sandbox.stop(0);
  }
}

export interface ProbeReport {
  /** The probe's lines, as tab-separated fields. */
  lines: string[][];
  /** The first value of the first line with this key. */
  value(key: string): string | undefined;
  /** What opening each target said: "OPENED" or the shell's error. */
  opened: Map<string, string>;
}

export function parseReport(stdout: string): ProbeReport {
  const lines = stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t"));
  const opened = new Map<string, string>();
  for (const [key, path, said] of lines) {
    if (key === "open" && path !== undefined) opened.set(path, said ?? "");
  }
  return {
    lines,
    value: (key) => lines.find((l) => l[0] === key)?.[1],
    opened,
  };
}

export interface LeftEntry {
  path: string;
  uid: number;
  gid: number;
  mode: number;
}

/** Every entry under `workspace` (itself included) as the host sees it, but the GO file. */
export async function leftInWorkspace(workspace: string): Promise<LeftEntry[]> {
  const entries: LeftEntry[] = [];
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path);
    entries.push({ path, uid: info.uid, gid: info.gid, mode: info.mode });
    if (!info.isDirectory()) return;
    for (const name of await readdir(path)) {
      if (path === workspace && name === GO) continue;
      await visit(join(path, name));
    }
  };
  await visit(workspace);
  return entries;
}

/** The host's values of the targets that exist here; null for those this kernel lacks. */
export async function hostValues(): Promise<Map<string, string | null>> {
  const values = new Map<string, string | null>();
  for (const path of PROC_TARGETS) {
    // /proc/sysrq-trigger is write-only: only whether it exists is read.
    const value = await readFile(path, "utf8").catch((e: unknown) => {
      const code = (e as NodeJS.ErrnoException).code;
      return code === "ENOENT" ? null : `(unreadable: ${code ?? "?"})`;
    });
    values.set(path, value);
  }
  return values;
}

/**
 * Asserts that what the task left is `uid`:`gid`'s on the host, never root's: its file, its
 * directory, and the copy of a shell it made setuid, which is then setuid to that uid only.
 */
export function assertLeftBy(
  entries: readonly LeftEntry[],
  workspace: string,
  ids: { uid: number; gid: number },
): void {
  const byName = new Map(entries.map((e) => [relative(workspace, e.path), e]));
  for (const name of Object.values(LEFT)) assert.ok(byName.has(name), `the task left no ${name}`);
  for (const [name, entry] of byName) {
    const what = `${name === "" ? "the workspace" : name} (mode ${entry.mode.toString(8)})`;
    assert.notEqual(entry.uid, 0, `${what} is root's on the host`);
    assert.equal(entry.uid, ids.uid, `${what} belongs to host uid ${entry.uid}`);
    assert.equal(entry.gid, ids.gid, `${what} belongs to host gid ${entry.gid}`);
  }
  const setuid = byName.get(LEFT.setuid);
  if (setuid !== undefined && (setuid.mode & S_ISUID) !== 0) {
    assert.equal(setuid.uid, ids.uid, "the setuid copy runs as someone else than the task");
  }
}

/**
 * Asserts that no /proc/sys file (nor /proc/sysrq-trigger) opened for writing inside, that
 * each target the host has was refused as the kernel refuses an unprivileged writer, and that
 * the host's values are as they were.
 */
export function assertProcRefused(
  report: ProbeReport,
  before: ReadonlyMap<string, string | null>,
  after: ReadonlyMap<string, string | null>,
): void {
  for (const path of PROC_TARGETS) {
    const said = report.opened.get(path);
    assert.ok(said !== undefined, `the probe did not try ${path}`);
    assert.notEqual(said, "OPENED", `${path} opened for writing inside`);
    if (before.get(path) !== null) {
      assert.match(said, /Permission denied|Read-only file system/, `opening ${path}`);
    }
  }
  const files = Number(report.value("sweep-files"));
  assert.ok(files > 100, `the probe saw only ${files} files under /proc/sys`);
  const opened = report.lines.filter((l) => l[0] === "sweep-opened").map((l) => l[1]);
  assert.deepEqual(opened, [], "files of /proc/sys opened for writing inside");
  assert.equal(report.value("sweep-opened-count"), "0");
  assert.deepEqual([...after], [...before], "a value under /proc changed");
}

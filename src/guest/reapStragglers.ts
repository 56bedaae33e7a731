// After the agent exits, nothing it started may still run: a daemon left behind could change
// the workspace while the runner commits it, or outlive the task. With a PID namespace of its
// own the runner stops every other process in it; without one it stops the agent's process
// group and every process that still carries the run's marker in its environment.
import { setTimeout as sleep } from "node:timers/promises";
import { cleanLine } from "../protocol/index.js";
import { ProcessTable, type ProcessEntry } from "./processTable.js";

/** How often the runner looks again while it waits for processes to go. */
const POLL_MS = 25;
/** SIGKILL rounds, each after a fresh look, so that a process forking while it dies is caught. */
const KILL_ROUNDS = 40;

export type ReapScope =
  /** Every process but the runner and its ancestors (pid 1 may be the sandbox's reaper). */
  | { readonly kind: "namespace" }
  /** The agent's process group and the processes whose environment holds `marker`. */
  | { readonly kind: "agent"; readonly pgid: number | undefined; readonly marker: string };

export interface ReapRequest {
  readonly scope: ReapScope;
  /** Between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  /** The runner's pid; it and its ancestors are spared. */
  readonly self?: number;
  readonly table?: ProcessTable;
}

export interface Reaped {
  /** Processes that were running and were stopped. */
  readonly stopped: readonly ProcessEntry[];
  /** Processes still running at the end, or that the runner was not allowed to signal. */
  readonly unreachable: readonly ProcessEntry[];
}

/** The processes in scope, in one scan of /proc. */
function find(table: ProcessTable, scope: ReapScope, spare: ReadonlySet<number>): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const pid of table.pids()) {
    if (spare.has(pid)) continue;
    const entry = table.entry(pid);
    if (entry === undefined || entry.state === "Z") continue;
    if (
      scope.kind === "namespace" ||
      (scope.pgid !== undefined && entry.pgid === scope.pgid) ||
      table.hasEnvEntry(pid, scope.marker) === true
    ) {
      found.push(entry);
    }
  }
  return found;
}

/** Sends a signal; returns false when the process may not be signalled by the runner. */
function send(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}

function sendGroup(scope: ReapScope, signal: NodeJS.Signals): void {
  if (scope.kind !== "agent" || scope.pgid === undefined) return;
  try {
    process.kill(-scope.pgid, signal);
  } catch {
    // The group is empty, or holds nothing the runner may signal; each member is tried alone.
  }
}

/** Stops what the agent left behind: SIGTERM, up to `graceMs`, then SIGKILL. */
export async function reapStragglers(request: ReapRequest): Promise<Reaped> {
  const table = request.table ?? new ProcessTable();
  const { scope } = request;
  const spare = table.lineage(request.self ?? process.pid);
  const stopped = new Map<number, ProcessEntry>();
  const denied = new Map<number, ProcessEntry>();

  const signalAll = (entries: readonly ProcessEntry[], signal: NodeJS.Signals): void => {
    sendGroup(scope, signal);
    for (const entry of entries) {
      if (!stopped.has(entry.pid) || signal === "SIGKILL") {
        if (send(entry.pid, signal)) stopped.set(entry.pid, entry);
        else denied.set(entry.pid, entry);
      }
    }
  };

  let found = find(table, scope, spare);
  if (found.length === 0) return { stopped: [], unreachable: [] };
  signalAll(found, "SIGTERM");
  const deadline = Date.now() + request.graceMs;
  while (found.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    found = find(table, scope, spare);
    // Newcomers forked during the grace get their SIGTERM too.
    signalAll(found, "SIGTERM");
  }
  for (let round = 0; round < KILL_ROUNDS && found.length > 0; round++) {
    signalAll(found, "SIGKILL");
    await sleep(POLL_MS);
    found = find(table, scope, spare);
  }
  const unreachable = new Map<number, ProcessEntry>();
  for (const entry of [...found, ...denied.values()]) unreachable.set(entry.pid, entry);
  for (const pid of unreachable.keys()) stopped.delete(pid);
  return { stopped: [...stopped.values()], unreachable: [...unreachable.values()] };
}

/** "1234 (sleep), 1240 (node)" for progress lines and warnings; comm is cleaned free text. */
export function describeProcesses(entries: readonly ProcessEntry[], max = 10): string {
  const shown = entries.slice(0, max).map((e) => `${e.pid} (${cleanLine(e.comm)})`);
  if (entries.length > max) shown.push(`and ${entries.length - max} more`);
  return shown.join(", ");
}

// `run --detach`: the task runs in a background `warden start` that outlives the terminal, its
// output going to the task's results/host.log, once its turn in the machine's queue has come. The caller waits only until the task is attached
// (or the background process has failed before that), so a refusal is still reported here.
import { spawn } from "node:child_process";
import { closeSync, constants, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { taskLayout } from "../host/index.js";
import { cleanText } from "../protocol/index.js";
import { ensureRealDir, openNoFollowSync, type Tasks } from "../store/index.js";

/** How long `run --detach` waits to see the task attached or queued before it trusts the background. */
const ATTACH_WAIT_MS = 10_000;
const POLL_MS = 25;
/** How much of host.log is shown when the background process failed at once. */
const LOG_TAIL_BYTES = 4096;
/** The hidden flag of `warden start` that makes it wait its turn in the queue (runTurn.ts). */
export const WAIT_TURN_FLAG = "--wait-turn";

export interface Detached {
  pid: number;
  log: string;
  /** Set when the background process ended before the task was attached. */
  failed?: { code: number | null; log: string };
}

export async function detach(tasks: Tasks, id: string): Promise<Detached> {
  const layout = taskLayout(tasks.dataDir, id);
  // Never through a link planted as results/ or host.log (PLANTED_LINK).
  ensureRealDir(layout.results);
  const fd = openNoFollowSync(
    layout.hostLog,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
    0o600,
  );
  const script = process.argv[1];
  if (script === undefined) throw new Error("cannot tell which script runs warden");
  // The state it has now (created, or interrupted for `start --detach`): any other means the
  // background process has taken the task, to queue it or to run it.
  const before = (await tasks.get(id)).state;
  const child = spawn(
    process.execPath,
    [...process.execArgv, script, "--data-dir", tasks.dataDir, "start", WAIT_TURN_FLAG, id],
    { detached: true, stdio: ["ignore", fd, fd], env: process.env },
  );
  closeSync(fd);
  let exit: number | null | undefined;
  child.once("exit", (code) => {
    exit = code;
  });
  const pid = child.pid ?? 0;
  const giveUpAt = Date.now() + ATTACH_WAIT_MS;
  try {
    while (Date.now() < giveUpAt) {
      const state = (await tasks.get(id)).state;
      if (state !== before) return { pid, log: layout.hostLog };
      if (exit !== undefined) {
        const log = existsSync(layout.hostLog) ? readFileSync(layout.hostLog) : Buffer.alloc(0);
        const tail = cleanText(log.subarray(Math.max(0, log.length - LOG_TAIL_BYTES)));
        return { pid, log: layout.hostLog, failed: { code: exit, log: tail } };
      }
      await sleep(POLL_MS);
    }
    return { pid, log: layout.hostLog };
  } finally {
    child.unref();
  }
}

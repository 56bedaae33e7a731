// The record a holder of attach.lock writes into it: who holds it and why. Diagnostic only:
// liveness is the flock(2), never this record or the pid in it.
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { cleanLine } from "../protocol/index.js";

/** Why a holder took the lock: to run the task, to record an end, or to remove it. */
export type LockPurpose = "run" | "record" | "remove";

/** Who holds the lock, as the holder wrote it: diagnostic only, never used for liveness. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When this holder took the lock, ms since the epoch. */
  startedAt: number;
  /** How many times the task was attached to run, this holder included. */
  attempt: number;
  purpose: LockPurpose;
}

/** The holder's diagnostic record, or undefined when it is absent or half written. */
export function readHolder(path: string): LockHolder | undefined {
  try {
    // Never read through a link planted as the lock.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    let text: string;
    try {
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (
      value !== null &&
      typeof value.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.startedAt === "number" &&
      typeof value.attempt === "number" &&
      (value.purpose === "run" || value.purpose === "record" || value.purpose === "remove")
    ) {
      return value as LockHolder;
    }
  } catch {
    // Absent, or being rewritten by a new holder at this moment: the record is only diagnostic.
  }
  return undefined;
}

/** What the holder is doing, for a refusal: "running in pid 42 on build-1". */
export function holderText(holder: LockHolder | undefined): string {
  if (holder === undefined) return "running in another process";
  const doing = { run: "running", record: "having its end recorded", remove: "being removed" };
  return `${doing[holder.purpose]} in pid ${holder.pid} on ${cleanLine(holder.host)}`;
}

// The user's side of stepping inside, for `warden exec`, `shell`, `cp` and `stop`: the checks
// that need only the task's files (its settings allow it, it runs), then one connection to the
// door its executor serves (insideDoor.ts), over which one session runs.
import { createConnection } from "node:net";
import { join } from "node:path";
import {
  FRAME,
  FROM_GUEST_KINDS,
  insideErrorSchema,
  insideExitSchema,
  jsonFrame,
  cleanLine,
  parseFrameJson,
  type InsideExit,
  type InsideOpen,
} from "../../protocol/index.js";
import type { Tasks } from "../../store/index.js";
import { readHostSettings } from "../hostSettings.js";
import { taskLayout } from "../taskLayout.js";
import { FrameSocket } from "./frameSocket.js";
import { DOOR_SOCKET } from "./insideDoor.js";
import { InsideNotAllowedError, InsideNotServingError, InsideSessionError } from "./errors.js";

/** What a session needs once its task was checked. */
export interface InsideTarget {
  readonly id: string;
  readonly door: string;
}

/**
 * Resolves `ref` and checks, from the task's files alone, that a person may step inside it now:
 * its settings allow it (`debug` for `stop`), and it runs. Throws the refusal otherwise.
 */
export async function insideTarget(
  tasks: Tasks,
  ref: string,
  need: "exec" | "debug",
): Promise<InsideTarget> {
  const details = await tasks.get(ref);
  const { id } = details;
  const host = readHostSettings(id, details.spec.settings);
  if (need === "debug" && host.guest.debug !== true) {
    throw new InsideNotAllowedError(
      `task ${id} was not created with --debug: there is no hold to end`,
      {
        hint: "end a running task with `warden cancel`",
      },
    );
  }
  if (host.guest.allowExec !== true) {
    throw new InsideNotAllowedError(`task ${id} does not allow stepping inside`);
  }
  if (details.state !== "running") {
    throw new InsideNotServingError(`task ${id} is ${details.state}, not running`);
  }
  return { id, door: join(taskLayout(tasks.dataDir, id).egress, DOOR_SOCKET) };
}

/** Connects to the task's door; refuses when its executor does not serve one. */
export function connectInside(target: InsideTarget): Promise<FrameSocket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: target.door });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        new InsideNotServingError(
          `task ${target.id} is not taking sessions (${error.code ?? cleanLine(error.message)})`,
        ),
      );
    });
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      resolve(new FrameSocket(socket, FROM_GUEST_KINDS));
    });
  });
}

export interface SessionOutput {
  readonly stdout: (chunk: Buffer) => void;
  readonly stderr: (chunk: Buffer) => void;
}

/**
 * Opens `open` on `link` and resolves with how it ended; rejects with InsideSessionError when
 * the sandbox refused it, or InsideNotServingError when the connection ended without a word.
 */
export function runInside(
  link: FrameSocket,
  open: InsideOpen,
  output: SessionOutput,
): Promise<InsideExit> {
  return new Promise((resolve, reject) => {
    let done = false;
    link.onFrame((kind, payload) => {
      if (done) return;
      if (kind === FRAME.stdout) output.stdout(payload);
      else if (kind === FRAME.stderr) output.stderr(payload);
      else if (kind === FRAME.exit) {
        done = true;
        const exit = parseFrameJson(insideExitSchema(), payload);
        if (exit === undefined)
          reject(new InsideSessionError("the session ended with a report warden does not take"));
        else resolve(exit);
      } else if (kind === FRAME.error) {
        done = true;
        const error = parseFrameJson(insideErrorSchema(), payload);
        reject(new InsideSessionError(cleanLine(error?.message ?? "the session was refused")));
      }
    });
    void link.closed.then(() => {
      if (!done)
        reject(new InsideNotServingError("the task's executor ended the session without a word"));
    });
    link.socket.write(jsonFrame(FRAME.open, open));
  });
}

/** Ends a debug hold (`warden stop`). */
export async function releaseHold(target: InsideTarget): Promise<void> {
  const link = await connectInside(target);
  const ended = new Promise<void>((resolve, reject) => {
    link.onFrame((kind, payload) => {
      if (kind === FRAME.exit) resolve();
      else if (kind === FRAME.error) {
        const error = parseFrameJson(insideErrorSchema(), payload);
        reject(new InsideSessionError(cleanLine(error?.message ?? "the stop was refused")));
      }
    });
    void link.closed.then(() => {
      reject(new InsideNotServingError("the task's executor ended the stop without a word"));
    });
  });
  link.write(FRAME.release);
  try {
    await ended;
  } finally {
    link.destroy();
  }
}

/** The exit status a session's command gives `warden exec`: its code, or 128 + its signal. */
export function exitStatus(exit: InsideExit, signals: Readonly<Record<string, number>>): number {
  if (exit.code !== null) return exit.code;
  return 128 + (exit.signal === undefined ? 0 : (signals[exit.signal] ?? 0));
}

// One session a person opened inside the task (`warden exec`, `shell`, `cp`), run by the runner
// on the connection the host handed it to. The command runs as the agent does: the same uid,
// cgroup and namespaces (it is the runner's child), the same environment with the same network
// gate, in the agent's working directory, in a process group of its own that is ended with the
// connection.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import {
  FRAME,
  cleanLine,
  insideResizeSchema,
  parseFrameJson,
  type InsideExit,
  type InsideOpen,
} from "../protocol/index.js";
import { errorMessage } from "../lang/index.js";
import { getFile, putFile } from "./insideFiles.js";
import type { FrameLink } from "./frameLink.js";
import { GUEST_INSIDE_LIMITS } from "./limits.js";
import { PTY_PROGRAM, PTY_PYTHON } from "./ptyProgram.js";

export interface SessionContext {
  /** The task's repository: where `cp` paths start. */
  readonly workspace: string;
  /** The agent's working directory: where commands run. */
  readonly cwd: string;
  /** The agent's environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** The shell a `warden shell` without a command opens. */
function defaultShell(): string[] {
  return existsSync("/bin/bash") ? ["/bin/bash", "-l"] : ["/bin/sh", "-l"];
}

/** Runs the session `open` on `link` to its end; never rejects. */
export async function runSession(
  link: FrameLink,
  open: InsideOpen,
  context: SessionContext,
): Promise<void> {
  try {
    switch (open.kind) {
      case "exec":
        await runProcess(link, context, open.argv[0] ?? "", open.argv.slice(1), {});
        return;
      case "shell": {
        const python = PTY_PYTHON.find((path) => existsSync(path));
        if (python === undefined) {
          await link.finish(FRAME.error, {
            message:
              "the sandbox has no python3, which warden shell uses for its terminal; use warden exec",
          });
          return;
        }
        const argv = open.argv === undefined || open.argv.length === 0 ? defaultShell() : open.argv;
        await runProcess(
          link,
          context,
          python,
          ["-c", PTY_PROGRAM, String(open.rows), String(open.cols), ...argv],
          { TERM: open.term ?? "xterm-256color" },
          true,
        );
        return;
      }
      case "get": {
        const bytes = await getFile(link, context.workspace, open.path);
        await link.finish(FRAME.exit, { code: 0, bytes } satisfies InsideExit);
        return;
      }
      case "put": {
        const bytes = await putFile(link, context.workspace, open.path, open.bytes, open.mode);
        await link.finish(FRAME.exit, { code: 0, bytes } satisfies InsideExit);
        return;
      }
    }
  } catch (error) {
    await link.finish(FRAME.error, { message: cleanLine(errorMessage(error)).slice(0, 2000) });
  }
}

/** Runs one command with pipes (and fd 3 for a terminal's size), streaming both ways. */
async function runProcess(
  link: FrameLink,
  context: SessionContext,
  program: string,
  args: string[],
  extraEnv: Record<string, string>,
  terminal = false,
): Promise<void> {
  const child = spawn(program, args, {
    cwd: context.cwd,
    env: { ...context.env, ...extraEnv },
    stdio: terminal ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const started = await new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => {
      resolve(undefined);
    });
    child.once("error", resolve);
  });
  if (started !== undefined) {
    await link.finish(FRAME.error, {
      message: `cannot run ${cleanLine(program)}: ${cleanLine(started.message)}`,
    });
    return;
  }
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const control = terminal ? (child.stdio[3] as NodeJS.WritableStream | null) : null;
  child.stdin.on("error", () => undefined);
  control?.on("error", () => undefined);
  link.onFrame((kind, payload) => {
    if (kind === FRAME.stdin) child.stdin.write(payload);
    else if (kind === FRAME.stdinEnd) child.stdin.end();
    else if (kind === FRAME.resize && control !== null) {
      const size = parseFrameJson(insideResizeSchema(), payload);
      if (size !== undefined) control.write(`${size.rows} ${size.cols}\n`);
    }
  });
  const forward = (
    stream: NodeJS.ReadableStream | null,
    kind: typeof FRAME.stdout | typeof FRAME.stderr,
  ) =>
    new Promise<void>((resolve) => {
      if (stream === null) {
        resolve();
        return;
      }
      stream.on("data", (chunk: Buffer) => {
        stream.pause();
        void link.send(kind, chunk).then(() => stream.resume());
      });
      stream.once("end", () => {
        resolve();
      });
      stream.once("error", () => {
        resolve();
      });
    });
  const output = Promise.all([
    forward(child.stdout, FRAME.stdout),
    forward(child.stderr, FRAME.stderr),
  ]);
  const gone = link.closed.then(() => "gone" as const);
  const outcome = await Promise.race([ended, gone]);
  if (outcome === "gone") {
    endGroup(child);
    return;
  }
  await output;
  await link.finish(FRAME.exit, {
    code: outcome.code,
    ...(outcome.signal === null ? {} : { signal: outcome.signal }),
  } satisfies InsideExit);
}

/** Ends the command's whole process group: SIGTERM, a grace, SIGKILL. */
function endGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group has already ended.
    }
  };
  signal("SIGHUP");
  signal("SIGTERM");
  setTimeout(() => {
    signal("SIGKILL");
  }, GUEST_INSIDE_LIMITS.killGraceMs).unref();
}

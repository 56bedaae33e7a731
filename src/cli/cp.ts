// `warden cp`: one file into or out of a running task's workspace, through the sandbox's runner.
// The file that comes out is the sandbox's, so it is bounded (the door counts it too) and written
// beside its place under a temporary name, then renamed: a link already at the destination is
// replaced, never followed, and an interrupted copy leaves nothing half-written.
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Command } from "commander";
import {
  connectInside,
  InsideCopyPathError,
  insideTarget,
  runInside,
  type FrameSocket,
} from "../host/index.js";
import {
  cleanLine,
  FRAME,
  INSIDE_LIMITS,
  INSIDE_VERSION,
  insidePathProblem,
} from "../protocol/index.js";
import { UsageError } from "./cliErrors.js";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

/** `ID:PATH` names a file in a task's workspace; a path that starts with `/` or `.` is local. */
function remoteOf(text: string): { ref: string; path: string } | undefined {
  const match = /^([A-Za-z0-9_-]+):(.*)$/s.exec(text);
  if (match === null || text.startsWith("/") || text.startsWith(".")) return undefined;
  return { ref: match[1] ?? "", path: match[2] ?? "" };
}

/** The workspace path, checked as the runner will check it; a trailing `/` takes `name`. */
function workspacePath(path: string, name: string): string {
  const full = path.endsWith("/") ? `${path}${name}` : path;
  const problem = insidePathProblem(full);
  if (problem !== undefined) {
    throw new InsideCopyPathError(`${cleanLine(full)} is not a path cp takes: ${problem}`);
  }
  return full;
}

export function registerCp(program: Command): void {
  program
    .command("cp")
    .summary("copy a file into or out of a running task's workspace")
    .description(
      "Copy one regular file between this machine and the workspace of a running task that " +
        "allows it (--allow-exec or --debug). Name the task's side ID:PATH, PATH relative to " +
        "the task's repository (a trailing / keeps the file's name); `..`, absolute paths and " +
        `links on the way are refused. At most ${INSIDE_LIMITS.copyBytes / 1024 / 1024} MiB. ` +
        "A file copied out replaces what is at the destination (a directory takes it by its " +
        "name). Each copy is recorded in the task's events.",
    )
    .argument("<source>", "LOCAL-FILE, or ID:PATH")
    .argument("<destination>", "ID:PATH, or LOCAL-PATH")
    .option("--json", "print {id, direction, path, bytes} as JSON")
    .action(
      async (source: string, destination: string, flags: { json?: boolean }, cmd: Command) => {
        const from = remoteOf(source);
        const to = remoteOf(destination);
        if ((from === undefined) === (to === undefined)) {
          throw new UsageError(
            "cp copies between this machine and one task: name one side ID:PATH",
            {
              hint: "warden cp ./notes.md ID:docs/  or  warden cp ID:build.log .",
            },
          );
        }
        const tasks = await openTasks(cmd);
        const remote = from ?? to;
        if (remote === undefined) return;
        const target = await insideTarget(tasks, remote.ref, "exec");
        const outcome =
          to !== undefined
            ? await copyIn(target, source, to.path)
            : await copyOut(target, remote.path, destination);
        if (flags.json === true) printJson({ id: target.id, ...outcome });
        else {
          standardOut.write(
            `${outcome.direction === "in" ? "copied into" : "copied out of"} ${target.id}: ${cleanLine(outcome.path)} (${outcome.bytes} bytes)\n`,
          );
        }
      },
    );
}

interface Copied {
  direction: "in" | "out";
  path: string;
  bytes: number;
}

async function copyIn(
  target: Parameters<typeof connectInside>[0],
  local: string,
  path: string,
): Promise<Copied> {
  const info = await stat(local).catch(() => undefined);
  if (info === undefined || !info.isFile()) {
    throw new InsideCopyPathError(`${cleanLine(local)} is not a regular file here`);
  }
  if (info.size > INSIDE_LIMITS.copyBytes) {
    throw new InsideCopyPathError(
      `${cleanLine(local)} is ${info.size} bytes, over the ${INSIDE_LIMITS.copyBytes} a copy may have`,
    );
  }
  const inside = workspacePath(path, basename(local));
  const link = await connectInside(target);
  try {
    const running = runInside(
      link,
      { v: INSIDE_VERSION, kind: "put", path: inside, bytes: info.size, mode: info.mode & 0o777 },
      { stdout: () => undefined, stderr: () => undefined },
    );
    await sendFile(link, local);
    const exit = await running;
    return { direction: "in", path: inside, bytes: exit.bytes ?? info.size };
  } finally {
    link.destroy();
  }
}

async function sendFile(link: FrameSocket, local: string): Promise<void> {
  const stream = createReadStream(local, { highWaterMark: INSIDE_LIMITS.frameBytes });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (!link.write(FRAME.stdin, chunk)) {
      await new Promise<void>((resolve) => {
        link.socket.once("drain", resolve);
        void link.closed.then(resolve);
      });
    }
    if (link.socket.destroyed) return;
  }
  link.write(FRAME.stdinEnd);
}

async function copyOut(
  target: Parameters<typeof connectInside>[0],
  path: string,
  local: string,
): Promise<Copied> {
  const inside = workspacePath(path, "");
  const name = basename(inside);
  const isDir = (await stat(local).catch(() => undefined))?.isDirectory() === true;
  const destination = isDir ? join(local, name) : local;
  const temp = join(dirname(destination), `.warden-cp-${randomBytes(6).toString("hex")}`);
  const out = createWriteStream(temp, { flags: "wx", mode: 0o644 });
  const failed = new Promise<never>((_, reject) => out.once("error", reject));
  failed.catch(() => undefined);
  const link = await connectInside(target);
  let bytes = 0;
  try {
    const exit = await Promise.race([
      failed,
      runInside(
        link,
        { v: INSIDE_VERSION, kind: "get", path: inside },
        {
          stdout: (chunk) => {
            bytes += chunk.byteLength;
            if (!out.write(chunk)) {
              link.socket.pause();
              out.once("drain", () => link.socket.resume());
            }
          },
          stderr: () => undefined,
        },
      ),
    ]);
    await new Promise<void>((resolve, reject) => {
      out.end((error?: Error | null) => {
        if (error) reject(error);
        else resolve();
      });
    });
    await rename(temp, destination);
    return { direction: "out", path: inside, bytes: exit.bytes ?? bytes };
  } catch (error) {
    out.destroy();
    await new Promise<void>((resolve) =>
      out.once("close", () => {
        resolve();
      }),
    );
    await rm(temp, { force: true });
    throw error;
  } finally {
    link.destroy();
  }
}

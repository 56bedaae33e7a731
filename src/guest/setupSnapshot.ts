// The runner's side of the setup's snapshot (src/protocol/setupSnapshot.ts holds the layout):
// made after setup from what git sees changed in the workspace, ignored files included; restored
// in place of setup when the host's cache had one. Restoring reads the snapshot as hostile too.
import { spawn } from "node:child_process";
import { constants, createReadStream, createWriteStream } from "node:fs";
import { lstat, mkdir, open, readdir, readlink, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { pack as tarPack } from "tar-stream";
import {
  BadSnapshotError,
  readSnapshot,
  SETUP_LIMITS,
  SNAPSHOT_DELETIONS,
  SNAPSHOT_FILES_PREFIX,
  type SnapshotBody,
  type SnapshotEntry,
  type SnapshotSummary,
} from "../protocol/index.js";
import { gitArgv } from "./gitSteps.js";
import { GUEST_SETUP_LIMITS } from "./limits.js";

/** What git status says changed: paths to keep (files, links, directories to walk) and deletions. */
export interface WorkspaceChanges {
  readonly kept: readonly string[];
  readonly deleted: readonly string[];
}

/**
 * Reads `git status --porcelain -z` output (ignored and untracked files listed, no renames).
 * Pure. A path with a deleted side is a deletion; every other path is kept.
 */
export function parseStatus(output: Buffer): WorkspaceChanges {
  const kept: string[] = [];
  const deleted: string[] = [];
  for (const record of output.toString("utf8").split("\0")) {
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    const path = record.slice(3).replace(/\/$/, "");
    if (code.includes("D")) deleted.push(path);
    else kept.push(path);
  }
  return { kept, deleted };
}

/** Runs git status in the workspace and returns its bounded stdout. */
function gitStatus(workspace: string, env: Readonly<Record<string, string>>): Promise<Buffer> {
  const args = [
    "-C",
    workspace,
    "status",
    "--porcelain=v1",
    "-z",
    "--ignored=matching",
    "--untracked-files=all",
    "--no-renames",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("git", gitArgv(workspace, { what: "list what setup changed", args }), {
      env,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > GUEST_SETUP_LIMITS.statusBytes) {
        child.kill("SIGKILL");
        return;
      }
      chunks.push(chunk);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (bytes > GUEST_SETUP_LIMITS.statusBytes) {
        reject(
          new BadSnapshotError(
            `git lists more than ${GUEST_SETUP_LIMITS.statusBytes} bytes of changes`,
          ),
        );
      } else if (code !== 0) {
        reject(new BadSnapshotError(`git status exited with code ${String(code)}`));
      } else {
        resolve(Buffer.concat(chunks));
      }
    });
  });
}

/** Every file, link and directory at and under `path`, parents first, in a stable order. */
async function walk(workspace: string, path: string, out: string[]): Promise<void> {
  out.push(path);
  const stat = await lstat(join(workspace, path));
  if (!stat.isDirectory()) return;
  const names = (await readdir(join(workspace, path))).sort();
  for (const name of names) await walk(workspace, `${path}/${name}`, out);
}

/**
 * Writes the snapshot of what setup changed to `tarPath`. Returns its summary, or throws
 * BadSnapshotError when it would break a bound (then no snapshot is kept; the task goes on).
 */
export async function makeSnapshot(
  workspace: string,
  gitEnv: Readonly<Record<string, string>>,
  tarPath: string,
): Promise<SnapshotSummary> {
  const changes = parseStatus(await gitStatus(workspace, gitEnv));
  if (changes.deleted.length > SETUP_LIMITS.snapshotDeletions) {
    throw new BadSnapshotError(`setup deleted more than ${SETUP_LIMITS.snapshotDeletions} paths`);
  }
  const paths: string[] = [];
  for (const path of [...changes.kept].sort()) await walk(workspace, path, paths);
  if (paths.length >= SETUP_LIMITS.snapshotEntries) {
    throw new BadSnapshotError(`setup left more than ${SETUP_LIMITS.snapshotEntries} paths`);
  }
  const pack = tarPack();
  const writing = pipeline(pack, createWriteStream(tarPath, { mode: 0o600 }));
  const summary: SnapshotSummary = {
    files: 0,
    directories: 0,
    symlinks: 0,
    deletions: [...changes.deleted],
    bytes: 0,
  };
  try {
    if (changes.deleted.length > 0) {
      pack.entry({ name: SNAPSHOT_DELETIONS, mode: 0o644 }, JSON.stringify(changes.deleted));
    }
    for (const path of paths) {
      const full = join(workspace, path);
      const stat = await lstat(full);
      const name = `${SNAPSHOT_FILES_PREFIX}${path}`;
      if (stat.isDirectory()) {
        summary.directories++;
        pack.entry({ name, type: "directory", mode: 0o755 });
      } else if (stat.isSymbolicLink()) {
        summary.symlinks++;
        pack.entry({ name, type: "symlink", linkname: await readlink(full), mode: 0o777 });
      } else if (stat.isFile()) {
        summary.files++;
        summary.bytes += stat.size;
        if (summary.bytes > SETUP_LIMITS.snapshotBytes) {
          throw new BadSnapshotError(`setup left more than ${SETUP_LIMITS.snapshotBytes} bytes`);
        }
        await addFile(pack, name, full, stat.size, (stat.mode & 0o100) !== 0 ? 0o755 : 0o644);
      }
      // Sockets, fifos and devices setup made are not kept: a snapshot holds none.
    }
    pack.finalize();
    await writing;
  } catch (error) {
    pack.destroy();
    await writing.catch(() => undefined);
    throw error;
  }
  return summary;
}

/** Streams one file into the pack with its backpressure. */
async function addFile(
  pack: ReturnType<typeof tarPack>,
  name: string,
  path: string,
  size: number,
  mode: number,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const sink = pack.entry({ name, size, mode, type: "file" }, (error) => {
      if (error) reject(error);
      else resolve();
    });
    // A file setup turned into a link after git listed it is not followed.
    open(path, constants.O_RDONLY | constants.O_NOFOLLOW).then((handle) => {
      const source = handle.createReadStream();
      source.on("error", reject);
      source.pipe(sink);
    }, reject);
  });
}

/** Removes whatever is at `path` that is not a directory, so a new entry takes its place. */
async function clearPlace(path: string, keepDirectory: boolean): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return;
  if (keepDirectory && stat.isDirectory()) return;
  await rm(path, { recursive: true, force: true });
}

async function writeEntry(
  workspace: string,
  entry: SnapshotEntry,
  body: SnapshotBody,
): Promise<void> {
  const path = join(workspace, entry.path);
  await mkdir(dirname(path), { recursive: true });
  switch (entry.kind) {
    case "directory":
      await clearPlace(path, true);
      await mkdir(path, { recursive: true });
      return;
    case "symlink":
      await clearPlace(path, false);
      await symlink(entry.target, path);
      return;
    case "file": {
      await clearPlace(path, false);
      const handle = await open(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        entry.executable ? 0o755 : 0o644,
      );
      try {
        let written = 0;
        for await (const chunk of body) {
          written += chunk.length;
          if (written > entry.size) throw new BadSnapshotError("a file is longer than its entry");
          await handle.write(chunk);
        }
      } finally {
        await handle.close();
      }
    }
  }
}

/** Restores a snapshot into the workspace: its deletions, then its entries, each checked. */
export async function restoreSnapshot(
  workspace: string,
  tarPath: string,
): Promise<SnapshotSummary> {
  // git lists no path both as deleted and as kept, so the order of the two does not matter.
  const summary = await readSnapshot(createReadStream(tarPath), {
    visit: async (entry, body) => {
      await writeEntry(workspace, entry, body);
    },
  });
  for (const path of summary.deletions) {
    await rm(join(workspace, path), { recursive: true, force: true });
  }
  return summary;
}

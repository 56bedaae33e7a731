// A task's kept checkpoint: `checkpoint/` in its directory, holding checkpoint.json (the
// manifest, written last), changes.bundle (when the workspace had changed) and session.jsonl
// (when the agent had a session). A new one is made whole in `checkpoint.next/` and then takes the
// old one's place by two renames; a crash between them leaves `checkpoint.old/`, which is read
// when `checkpoint/` is missing, so there is always a whole one or none.
import { existsSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { SESSION_ID, OID } from "../../protocol/index.js";
import { isRealDir, refuseLink } from "../../store/index.js";
import { HOST_CHECKPOINT_LIMITS } from "./limits.js";

export const CHECKPOINT_DIRS = {
  kept: "checkpoint",
  next: "checkpoint.next",
  old: "checkpoint.old",
} as const;

export const CHECKPOINT_FILES = {
  manifest: "checkpoint.json",
  bundle: "changes.bundle",
  session: "session.jsonl",
} as const;

/** Where a checkpoint came from: a run of the task, or the task it continues. */
export type CheckpointOrigin = "run" | "continue";

/** checkpoint.json. */
export interface CheckpointManifest {
  readonly version: 1;
  /** Counts the task's checkpoints, 1 up; a continuation's copy is 0. */
  readonly seq: number;
  /** When the host kept it (ms since the epoch). */
  readonly at: number;
  readonly origin: CheckpointOrigin;
  /** The task a continuation's copy came from. */
  readonly from?: string;
  readonly attempt: number;
  readonly turn: number;
  readonly base: string;
  readonly head: string;
  readonly tip?: string;
  readonly sessionId?: string;
  readonly bundleBytes: number;
  readonly sessionBytes: number;
}

/** A kept checkpoint: its manifest and the paths of its files. */
export interface KeptCheckpoint {
  readonly dir: string;
  readonly manifest: CheckpointManifest;
  readonly bundle?: string;
  readonly session?: string;
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isOid = (v: unknown): v is string => typeof v === "string" && OID.test(v);

/** Reads a manifest's JSON defensively: anything not exactly the host's own shape is none. */
export function parseManifest(text: string): CheckpointManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const ok =
    m.version === 1 &&
    isInt(m.seq) &&
    isInt(m.at) &&
    (m.origin === "run" || m.origin === "continue") &&
    (m.from === undefined || typeof m.from === "string") &&
    isInt(m.attempt) &&
    isInt(m.turn) &&
    isOid(m.base) &&
    isOid(m.head) &&
    (m.tip === undefined || isOid(m.tip)) &&
    (m.sessionId === undefined ||
      (typeof m.sessionId === "string" && SESSION_ID.test(m.sessionId))) &&
    isInt(m.bundleBytes) &&
    isInt(m.sessionBytes);
  return ok ? (m as unknown as CheckpointManifest) : undefined;
}

/** Reads a small file without following a link, bounded. */
async function readSmall(path: string, max: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(max + 1);
    const { bytesRead } = await handle.read(buffer, 0, max + 1, 0);
    return bytesRead > max ? undefined : buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The task's kept checkpoint, or undefined when it has none (or none that is whole). */
export async function readCheckpoint(taskDir: string): Promise<KeptCheckpoint | undefined> {
  for (const name of [CHECKPOINT_DIRS.kept, CHECKPOINT_DIRS.old]) {
    const dir = join(taskDir, name);
    refuseLink(dir);
    if (!existsSync(dir) || !isRealDir(dir)) continue;
    const manifestPath = join(dir, CHECKPOINT_FILES.manifest);
    refuseLink(manifestPath);
    const text = await readSmall(manifestPath, HOST_CHECKPOINT_LIMITS.manifestBytes);
    const manifest = text === undefined ? undefined : parseManifest(text);
    if (manifest === undefined) continue;
    const bundle = join(dir, CHECKPOINT_FILES.bundle);
    const session = join(dir, CHECKPOINT_FILES.session);
    refuseLink(bundle);
    refuseLink(session);
    return {
      dir,
      manifest,
      ...(manifest.bundleBytes > 0 && existsSync(bundle) ? { bundle } : {}),
      ...(manifest.sessionBytes > 0 && existsSync(session) ? { session } : {}),
    };
  }
  return undefined;
}

/** Puts the whole checkpoint in `checkpoint.next/` in place of the kept one. */
export async function keepNext(taskDir: string): Promise<void> {
  const kept = join(taskDir, CHECKPOINT_DIRS.kept);
  const old = join(taskDir, CHECKPOINT_DIRS.old);
  await rm(old, { recursive: true, force: true });
  if (existsSync(kept)) await rename(kept, old);
  await rename(join(taskDir, CHECKPOINT_DIRS.next), kept);
  await rm(old, { recursive: true, force: true });
}

/** Writes a manifest (the last file of a checkpoint made in `dir`). */
export async function writeManifest(dir: string, manifest: CheckpointManifest): Promise<void> {
  const handle = await open(join(dir, CHECKPOINT_FILES.manifest), "wx", 0o600);
  try {
    await handle.writeFile(JSON.stringify(manifest) + "\n");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

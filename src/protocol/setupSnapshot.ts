// The snapshot of a setup: what setup changed in the workspace, as one tar. The runner makes it
// after setup, the host keeps it in its cache, and a later task's runner restores it instead of
// running setup. Both ends read it as hostile: every entry is checked here, by one function, before
// anything is written or kept.
//
// The layout: every path of the workspace under `files/` (regular files, directories, symbolic
// links, nothing else), and at most one `deletions.json`, the workspace paths setup removed.
import { posix } from "node:path";
import type { Readable } from "node:stream";
import { extract as tarExtract, type Header } from "tar-stream";
import { z } from "zod";
import { memo } from "../lang/index.js";
import { cleanLine } from "./clean.js";
import { WardenError } from "./errors.js";
import { SETUP_LIMITS } from "./limits.js";

/** The prefix of every workspace path in the snapshot. */
export const SNAPSHOT_FILES_PREFIX = "files/";
/** The snapshot's list of the paths setup deleted. */
export const SNAPSHOT_DELETIONS = "deletions.json";

/** A snapshot that breaks a rule of the layout or a bound: it is refused whole. */
export class BadSnapshotError extends WardenError {
  static override readonly hint =
    "the setup's snapshot is not kept; the next task with the same setup runs it again";
  readonly code: string = "BAD_SNAPSHOT";
  readonly exitClass = "operational";
}

export type SnapshotEntry =
  | {
      readonly kind: "file";
      readonly path: string;
      readonly size: number;
      readonly executable: boolean;
    }
  | { readonly kind: "directory"; readonly path: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string };

export interface SnapshotSummary {
  files: number;
  directories: number;
  symlinks: number;
  deletions: string[];
  /** The bytes of the files' contents. */
  bytes: number;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

function refuse(message: string): BadSnapshotError {
  return new BadSnapshotError(message);
}

/**
 * Checks a workspace path of the snapshot: relative, plain parts only (no `.`, `..` or empty
 * part), no part named `.git`, no control character, bounded. Returns the path or throws.
 */
export function checkSnapshotPath(path: string): string {
  if (Buffer.byteLength(path) > SETUP_LIMITS.snapshotPathBytes) {
    throw refuse(`a path in the snapshot is over ${SETUP_LIMITS.snapshotPathBytes} bytes`);
  }
  if (CONTROL.test(path)) throw refuse("a path in the snapshot has a control character");
  if (path.startsWith("/")) throw refuse(`the snapshot names an absolute path ${cleanLine(path)}`);
  const parts = path.split("/");
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") {
      throw refuse(`the snapshot names a path that is not plain: ${cleanLine(path)}`);
    }
    if (part === ".git") throw refuse(`the snapshot names git's own files: ${cleanLine(path)}`);
  }
  return path;
}

/** Checks where a link points: relative, and inside the workspace from where the link is. */
function checkLinkTarget(path: string, target: string): string {
  if (target === "" || Buffer.byteLength(target) > SETUP_LIMITS.snapshotPathBytes) {
    throw refuse(`the link ${cleanLine(path)} in the snapshot has no target or a long one`);
  }
  if (CONTROL.test(target)) throw refuse(`the link ${cleanLine(path)} has a control character`);
  if (target.startsWith("/")) {
    throw refuse(`the link ${cleanLine(path)} in the snapshot points out of the workspace`);
  }
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  if (resolved === ".." || resolved.startsWith("../") || resolved.split("/").includes(".git")) {
    throw refuse(`the link ${cleanLine(path)} in the snapshot points out of the workspace`);
  }
  return target;
}

/** One tar header as a snapshot entry, or a refusal. Pure. */
export function snapshotEntry(header: Header): SnapshotEntry | "deletions" {
  // Read as hostile: a header field the archive left out is undefined, whatever the types say.
  const loose: Partial<Header> = header;
  const name = header.name.replace(/\/$/, "");
  if (name === SNAPSHOT_DELETIONS && loose.type === "file") return "deletions";
  if (!name.startsWith(SNAPSHOT_FILES_PREFIX)) {
    throw refuse(`the snapshot has an entry outside files/: ${cleanLine(name)}`);
  }
  const path = checkSnapshotPath(name.slice(SNAPSHOT_FILES_PREFIX.length));
  const mode = loose.mode ?? 0o644;
  if ((mode & 0o7000) !== 0) {
    throw refuse(`the snapshot's ${cleanLine(path)} is setuid, setgid or sticky`);
  }
  const type = loose.type ?? "file";
  if (type === "file") {
    return { kind: "file", path, size: loose.size ?? 0, executable: (mode & 0o100) !== 0 };
  }
  if (type === "directory") return { kind: "directory", path };
  if (type === "symlink") {
    return { kind: "symlink", path, target: checkLinkTarget(path, loose.linkname ?? "") };
  }
  throw refuse(
    `the snapshot's ${cleanLine(path)} is a ${cleanLine(type)}, not a file, directory or link`,
  );
}

const deletionsSchema = memo(() => z.array(z.string()).max(SETUP_LIMITS.snapshotDeletions));

/** An entry's body as the visitor reads it: chunks of bytes, in order. */
export type SnapshotBody = AsyncIterable<Buffer>;

async function readBody(body: SnapshotBody, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) throw refuse(`${SNAPSHOT_DELETIONS} is over ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseDeletions(bytes: Buffer): string[] {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw refuse(`${SNAPSHOT_DELETIONS} is not JSON`);
  }
  const parsed = deletionsSchema().safeParse(value);
  if (!parsed.success) throw refuse(`${SNAPSHOT_DELETIONS} is not a bounded list of paths`);
  return parsed.data.map(checkSnapshotPath);
}

/** Whether `path` lies under one of the links seen so far (a write there would go through it). */
function underLink(path: string, links: ReadonlySet<string>): boolean {
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    if (links.has(path.slice(0, at))) return true;
  }
  return false;
}

export interface ReadSnapshotOptions {
  /** Called for each entry once it is checked; a file's body must be consumed (or drained). */
  readonly visit?: (entry: SnapshotEntry, body: SnapshotBody) => Promise<void>;
  /** Tighter bounds, for tests; looser ones are ignored. */
  readonly maxBytes?: number;
  readonly maxEntries?: number;
}

/**
 * Reads a snapshot tar from `input`, checking every entry; rejects with BadSnapshotError on the
 * first that breaks a rule: a bad path, a link out of the workspace or an entry under a link, a
 * device, fifo or hard link, a setuid bit, a name twice, or too many entries or bytes.
 */
export async function readSnapshot(
  input: Readable,
  options: ReadSnapshotOptions = {},
): Promise<SnapshotSummary> {
  const maxBytes = Math.min(options.maxBytes ?? Infinity, SETUP_LIMITS.snapshotBytes);
  const maxEntries = Math.min(options.maxEntries ?? Infinity, SETUP_LIMITS.snapshotEntries);
  const summary: SnapshotSummary = {
    files: 0,
    directories: 0,
    symlinks: 0,
    deletions: [],
    bytes: 0,
  };
  const seen = new Set<string>();
  const links = new Set<string>();
  let deletionsSeen = false;
  const extract = tarExtract();
  input.on("error", (error) => {
    extract.destroy(error);
  });
  input.pipe(extract);
  try {
    for await (const entryStream of extract) {
      const { header } = entryStream;
      // tar-stream's entries yield Buffers; its types say unknown.
      const body = entryStream as unknown as SnapshotBody;
      if (seen.size + (deletionsSeen ? 1 : 0) >= maxEntries) {
        throw refuse(`the snapshot has more than ${maxEntries} entries`);
      }
      const entry = snapshotEntry(header);
      if (entry === "deletions") {
        if (deletionsSeen) throw refuse(`the snapshot has ${SNAPSHOT_DELETIONS} twice`);
        deletionsSeen = true;
        summary.deletions = parseDeletions(
          await readBody(body, SETUP_LIMITS.snapshotDeletionsBytes),
        );
        continue;
      }
      if (seen.has(entry.path)) throw refuse(`the snapshot has ${cleanLine(entry.path)} twice`);
      seen.add(entry.path);
      if (underLink(entry.path, links)) {
        throw refuse(`the snapshot's ${cleanLine(entry.path)} lies under a link`);
      }
      if (entry.kind === "file") {
        summary.files++;
        summary.bytes += entry.size;
        if (summary.bytes > maxBytes) throw refuse(`the snapshot is over ${maxBytes} bytes`);
      } else if (entry.kind === "directory") {
        summary.directories++;
      } else {
        summary.symlinks++;
        const under = `${entry.path}/`;
        for (const path of seen) {
          if (path.startsWith(under)) {
            throw refuse(`the snapshot's ${cleanLine(path)} lies under a link`);
          }
        }
        links.add(entry.path);
      }
      if (options.visit !== undefined) {
        await options.visit(entry, body);
      }
      entryStream.resume();
    }
  } catch (error) {
    input.unpipe(extract);
    input.destroy();
    if (error instanceof BadSnapshotError) throw error;
    throw refuse(`the snapshot is not a tar archive: ${cleanLine((error as Error).message)}`);
  }
  return summary;
}

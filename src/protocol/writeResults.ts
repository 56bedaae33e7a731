// The guest's side of the results archive: the result files and result.json, as one tar stream.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { Writable } from "node:stream";
import { pack as tarPack, type Pack } from "tar-stream";
import { BadResultsError } from "./errors.js";
import { RESULT_LIMITS } from "./limits.js";
import { RESULT_FILES, type ResultFileName } from "./names.js";
import { formatResult, type Result } from "./result.js";
import { sendTo } from "./sendTo.js";
import { WORKSPACE_BUNDLE } from "./workspaces.js";

export interface ResultsFile {
  /** A result file, or the changes of a bound workspace (workspaceBundleName). */
  name: "transcript.jsonl" | "agent.log" | "changes.bundle" | `changes.${string}.bundle`;
  /** Where the file is; a symlink there is refused. */
  path: string;
}

/** Bytes read from a file at a time: big enough for few system calls, small enough to not matter. */
const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Entries carry mode 0600 and mtime 0: the host creates its own files and ignores both, and
 * fixed values make the same results give the same bytes.
 */
const ENTRY_MODE = 0o600;
const ENTRY_MTIME = new Date(0);

interface OpenedFile {
  name: string;
  file: FileHandle;
  size: number;
}

function refuse(message: string): BadResultsError {
  return new BadResultsError(message, {
    hint: "this is a bug in the guest: it must cut or drop a result before it sends it",
  });
}

/** Opens every file and checks it before a byte goes out, so a refusal sends nothing. */
async function openAll(files: readonly ResultsFile[], opened: OpenedFile[]): Promise<void> {
  const seen = new Set<string>();
  for (const { name, path } of files) {
    // Checked at run time too: the type is a promise the caller's JavaScript may not keep.
    const workspace = WORKSPACE_BUNDLE.test(name);
    if (
      !workspace &&
      ((name as string) === RESULT_FILES.result || !Object.hasOwn(RESULT_LIMITS, name))
    ) {
      throw refuse(`${JSON.stringify(name)} is not a result file the guest may send`);
    }
    if (seen.has(name)) throw refuse(`${name} is in the results twice`);
    seen.add(name);
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    // Pushed before the checks so the caller's finally closes it whatever happens next.
    const entry: OpenedFile = { name, file, size: 0 };
    opened.push(entry);
    const stat = await file.stat();
    if (!stat.isFile()) throw refuse(`${name} is not a regular file`);
    const limit = RESULT_LIMITS[workspace ? RESULT_FILES.changes : (name as ResultFileName)];
    if (stat.size > limit) {
      throw refuse(`${name} is ${stat.size} bytes, over its limit of ${limit}`);
    }
    entry.size = stat.size;
  }
}

/** Adds one entry and streams its body from the open file, with the pack's backpressure. */
async function addFile(pack: Pack, { name, file, size }: OpenedFile): Promise<void> {
  let sink: ReturnType<Pack["entry"]> | undefined;
  const done = new Promise<void>((resolve, reject) => {
    sink = pack.entry(
      { name, size, mode: ENTRY_MODE, mtime: ENTRY_MTIME, type: "file" },
      (error) => {
        if (error) reject(error);
        else resolve();
      },
    );
  });
  // Awaited at the end; a failure before then is reported by whatever stopped the loop.
  done.catch(() => undefined);
  if (sink === undefined) throw new Error("tar-stream did not return an entry");
  const entry = sink;
  // Its failures arrive through the entry's callback; an unheard error event would crash.
  entry.on("error", () => undefined);
  let position = 0;
  while (position < size) {
    // A fresh buffer each time: the pack keeps what it is given until it is read.
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, size - position));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) {
      const error = refuse(`${name} shrank while it was being sent`);
      entry.destroy(error);
      throw error;
    }
    position += bytesRead;
    if (!entry.write(buffer.subarray(0, bytesRead))) await drained(entry, pack);
  }
  entry.end(null);
  await done;
}

/** Waits until a pack entry takes more data; throws when the pack was destroyed meanwhile. */
function drained(entry: ReturnType<Pack["entry"]>, pack: Pack): Promise<void> {
  return new Promise((resolve, reject) => {
    if (entry.destroying || pack.destroying) {
      reject(new Error("the results archive was closed while a file was being sent"));
      return;
    }
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error("the results archive was closed while a file was being sent"));
    };
    const cleanup = (): void => {
      entry.off("drain", onDrain);
      entry.off("close", onClose);
      pack.off("close", onClose);
    };
    entry.on("drain", onDrain);
    entry.on("close", onClose);
    pack.on("close", onClose);
  });
}

async function produce(pack: Pack, opened: readonly OpenedFile[], result: Buffer): Promise<void> {
  for (const file of opened) await addFile(pack, file);
  await new Promise<void>((resolve, reject) => {
    pack.entry(
      { name: RESULT_FILES.result, mode: ENTRY_MODE, mtime: ENTRY_MTIME, type: "file" },
      result,
      (error) => {
        if (error) reject(error);
        else resolve();
      },
    );
  });
  pack.finalize();
}

/**
 * Writes the results archive to `out`: a tar of regular files with bare names, each streamed
 * from disk (its size taken from fstat of the open file, then exactly that many bytes sent),
 * result.json last. Resolves once every byte has been handed to `out` and its write has
 * completed.
 *
 * It never ends or closes `out`: it is usually process.stdout, which must stay open, and a
 * caller that owns another stream ends it itself. Refuses, before sending a byte, a file over
 * its limit, a name twice, a name that is not a result file, a file that is not regular and a
 * bad result (BadResultsError). A failure after sending began leaves a cut archive, which the
 * host refuses.
 */
export async function writeResults(
  out: Writable,
  files: readonly ResultsFile[],
  result: Result,
): Promise<void> {
  const opened: OpenedFile[] = [];
  try {
    const resultBytes = formatResult(result);
    await openAll(files, opened);
    const pack = tarPack();
    // Failures are reported through the promises below; an unheard error event would crash.
    pack.on("error", () => undefined);
    const first: { failure?: { error: unknown } } = {};
    const stop = (error: unknown): never => {
      first.failure ??= { error };
      pack.destroy(error instanceof Error ? error : new Error(String(error)));
      throw error;
    };
    // Both settle before the files close, and the failure that came first is the one reported:
    // the other is only its consequence.
    await Promise.allSettled([
      produce(pack, opened, resultBytes).catch(stop),
      sendTo(pack, out).catch(stop),
    ]);
    if (first.failure !== undefined) throw first.failure.error;
  } finally {
    await Promise.all(opened.map(({ file }) => file.close()));
  }
}

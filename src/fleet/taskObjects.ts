// The large things a fleet task moves between machines, in the fleet's object store (chunked by
// the client, so none meets the server's 1 MiB payload bound). One name per thing, so the client
// that creates a task, the worker that runs it and the client that fetches it agree:
//
// - `base/<id>`: a git bundle of the task's base commit, written by the client before the spec
//   exists (a client killed mid-upload leaves an object no spec names, never a half task).
// - `results/<id>/<attempt>/<name>`: what the worker of that attempt verified and kept of the
//   run (result.json, the changes bundle, the guest log), written before the terminal record, so
//   a task that reads finished has them under the attempt its record names (`attempts`). Each
//   attempt writes only its own: a worker that lost its lease and comes back uploads where no
//   reader looks, never over the results of the attempt that recorded the end. The client that fetches checks the changes bundle against its own
//   repository again: it trusts the worker no more than the worker trusts the sandbox.
import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { ObjectStore } from "@nats-io/obj";
import { WardenError } from "../protocol/index.js";

export const TASK_OBJECTS = {
  base: (id: string) => `base/${id}`,
  result: (id: string, attempt: number, name: string) => `results/${id}/${attempt}/${name}`,
  results: (id: string) => `results/${id}/`,
} as const;

/** An object that is not in the store, or larger than its reader allows. */
export class FleetObjectError extends WardenError {
  static override readonly hint = "the task's files are not in the fleet; run the task again";
  readonly code: string = "FLEET_OBJECT";
  readonly exitClass = "operational";
}

/** Streams a file into the store under `name`, replacing what was there. */
export async function putFile(objects: ObjectStore, name: string, path: string): Promise<void> {
  const file = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
  await objects.put({ name }, file);
}

/**
 * Streams the object `name` into the file at `path`, refusing one larger than `maxBytes` (the
 * writer of an object is another machine: its size is not taken on trust). The store checks the
 * object's digest as it reads; a mismatch is an error here.
 */
export async function getFile(
  objects: ObjectStore,
  name: string,
  path: string,
  maxBytes: number,
): Promise<void> {
  const found = await objects.get(name);
  if (found === null) throw new FleetObjectError(`the fleet holds no object ${name}`);
  if (found.info.size > maxBytes) {
    throw new FleetObjectError(
      `the fleet's object ${name} is ${found.info.size} bytes, more than the ${maxBytes} allowed`,
    );
  }
  let seen = 0;
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) {
        controller.error(
          new FleetObjectError(`the fleet's object ${name} grew past ${maxBytes} bytes`),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
  await pipeline(
    Readable.fromWeb(found.data.pipeThrough(counted) as NodeReadableStream),
    createWriteStream(path, { flags: "wx" }),
  );
  // The library settles `error` with nothing on success, whatever its type says.
  const error: unknown = await found.error;
  if (error instanceof Error)
    throw new FleetObjectError(`the fleet's object ${name} could not be read: ${error.message}`);
}

/** Every object name under `prefix` (a task's results). */
export async function listObjects(objects: ObjectStore, prefix: string): Promise<string[]> {
  const names: string[] = [];
  for (const info of await objects.list()) {
    if (!info.deleted && info.name.startsWith(prefix)) names.push(info.name);
  }
  return names;
}

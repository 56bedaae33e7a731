// The worker's own repository of a task's base: the client's base bundle, fetched from the fleet
// with a size bound, read and checked without git (a bundle of the base alone: no prerequisite,
// one ref, HEAD, naming exactly the spec's base), then indexed by git with its strict object
// checks and the house's safe config (unbundleStrictly) into a bare repository the worker owns.
// The local copy of the task borrows its objects from there as a task on one machine borrows
// the user's repository.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ObjectStore } from "@nats-io/obj";
import { hostGit, unbundleStrictly } from "../../host/index.js";
import { historyRef } from "../../protocol/index.js";
import { cleanLine, readBundleHeaderFile, type BundleHeader } from "../../protocol/index.js";
import { getFile, TASK_OBJECTS } from "../taskObjects.js";
import { BadBaseBundleError } from "./errors.js";

/** The one ref a base bundle carries (bundleBase.ts makes it so). */
const BASE_BUNDLE_REF = "HEAD";

export interface MirrorInput {
  objects: ObjectStore;
  id: string;
  /** The spec's base: the only commit the bundle may be a bundle of. */
  base: string;
  objectFormat: "sha1" | "sha256";
  /** The worker's directory for this task's mirror; made by the caller, removed by it after. */
  dir: string;
  maxBytes: number;
}

/** Pure: why `header` is not a bundle of exactly `base`, or undefined when it is one. */
export function baseBundleProblem(
  header: BundleHeader,
  base: string,
  objectFormat: "sha1" | "sha256",
): string | undefined {
  if (header.objectFormat !== objectFormat) {
    return `it is ${header.objectFormat} but the task's repository is ${objectFormat}`;
  }
  if (header.prerequisites.length > 0) return "it needs commits it does not carry";
  const names = [...header.refs.keys()];
  if (names.length !== 1 || names[0] !== BASE_BUNDLE_REF) {
    return `it carries the refs ${cleanLine(names.join(", ")) || "(none)"}, not ${BASE_BUNDLE_REF} alone`;
  }
  const head = header.refs.get(BASE_BUNDLE_REF);
  if (head !== base) return `its head ${cleanLine(head ?? "")} is not the task's base ${base}`;
  return undefined;
}

/** Makes the mirror of the task's base under `dir`; returns its path (a bare repository). */
export async function makeBaseMirror(input: MirrorInput): Promise<string> {
  const bundle = join(input.dir, "base.bundle");
  const mirror = join(input.dir, "mirror.git");
  await getFile(input.objects, TASK_OBJECTS.base(input.id), bundle, input.maxBytes);
  try {
    let header: BundleHeader;
    try {
      header = await readBundleHeaderFile(bundle);
    } catch (error) {
      throw new BadBaseBundleError(
        `the base of task ${input.id} is not a git bundle: ${error instanceof Error ? cleanLine(error.message) : "unreadable"}`,
      );
    }
    const problem = baseBundleProblem(header, input.base, input.objectFormat);
    if (problem !== undefined) {
      throw new BadBaseBundleError(`the base bundle of task ${input.id} was refused: ${problem}`);
    }
    // No templates: nothing of any config but git's own defaults touches the hostile pack.
    await hostGit(
      ["init", "--quiet", "--bare", "--template=", `--object-format=${input.objectFormat}`, mirror],
      { cwd: input.dir },
    );
    await unbundleStrictly(mirror, bundle, header, input.base);
    // The mirror is the task's history repository too (executeTask's `history`): it holds the
    // base, checked, and nothing else, under the ref the runner's clone looks for.
    await hostGit(["update-ref", historyRef(input.base), input.base], { cwd: mirror });
    return mirror;
  } finally {
    await rm(bundle, { force: true });
  }
}

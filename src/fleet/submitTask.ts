// The client's side of `run` against a fleet: the task is made with the same checks as on one
// machine, its base goes to the fleet's object store, and only then is its spec written, so a
// worker never takes a task whose base is not there and a client killed mid-upload leaves no
// task behind (only an object no spec names).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BadTaskOptionError,
  bundleBase,
  createTask,
  type CreatedTask,
  type CreateTaskInput,
} from "../host/index.js";
import type { FleetStore } from "./fleetStore.js";
import { putFile, TASK_OBJECTS } from "./taskObjects.js";

/**
 * What a task may not ask of a fleet: paths on the client's machine, which a worker does not
 * have. Each with the option's name, for the refusal.
 */
const LOCAL_ONLY: readonly { option: string; given: (input: CreateTaskInput) => boolean }[] = [
  { option: "--workspace", given: (input) => (input.workspaces ?? []).length > 0 },
  { option: "--skills", given: (input) => input.skillsDir !== undefined },
  { option: "--agent-program", given: (input) => input.agentProgram !== undefined },
];

/** Refuses what a fleet cannot run, before anything is made or uploaded. */
export function checkFleetInput(input: CreateTaskInput): void {
  for (const { option, given } of LOCAL_ONLY) {
    if (given(input)) {
      throw new BadTaskOptionError(
        `${option} names a path on this machine, which a fleet's workers do not have`,
        {
          hint: `run it without ${option}, or without --store to run it here`,
        },
      );
    }
  }
}

/** Creates the task in the fleet with its base uploaded first; it is queued once it exists. */
export async function submitTask(fleet: FleetStore, input: CreateTaskInput): Promise<CreatedTask> {
  checkFleetInput(input);
  const id = fleet.newId();
  const dir = await mkdtemp(join(tmpdir(), "warden-submit-"));
  try {
    return await createTask(fleet, input, undefined, {
      id,
      beforeWrite: async (start) => {
        const bundle = join(dir, "base.bundle");
        await bundleBase(dir, start, bundle);
        await putFile(fleet.objects, TASK_OBJECTS.base(id), bundle);
      },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

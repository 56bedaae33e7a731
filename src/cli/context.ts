// What every verb shares: the store, opened where the global --store and --data-dir (or the
// environment, or the user's config) say, and the parsing of values the user types.
import type { Command } from "commander";
import type { FleetOpenOptions, FleetStore } from "../fleet/index.js";
import { Tasks, type TaskStore } from "../store/index.js";
import { LocalOnlyVerbError } from "./cliErrors.js";
import { storeAddress, type FleetAddress } from "./storeAddress.js";

export interface GlobalOptions {
  dataDir?: string;
  store?: string;
}

/** The store a verb acts on: this machine's, or a fleet's (closed when the verb is done). */
export type OpenStore =
  | { kind: "local"; store: Tasks; tasks: Tasks; close(): Promise<void> }
  | {
      kind: "fleet";
      store: TaskStore;
      fleet: FleetStore;
      address: FleetAddress;
      close(): Promise<void>;
    };

/** The name the client's connection carries, as the server's monitoring shows it. */
const CLIENT_NAME = "warden client";

/**
 * Opens the fleet at `address`. The NATS client is loaded only here, so that a verb on this
 * machine's store never loads it.
 */
export async function openFleet(
  address: FleetAddress,
  name = CLIENT_NAME,
  options: Pick<FleetOpenOptions, "leaseTtlMs" | "heartbeatMs" | "env"> = {},
): Promise<FleetStore> {
  const { FleetStore, authenticatorFor } = await import("../fleet/index.js");
  const authenticator =
    address.credentials === undefined ? undefined : await authenticatorFor(address.credentials);
  return FleetStore.open({
    ...options,
    servers: address.servers,
    name,
    ...(authenticator === undefined ? {} : { authenticator }),
  });
}

/** Opens the store the command line, the environment or the user's config names. */
export async function openStore(command: Command): Promise<OpenStore> {
  const { dataDir, store } = command.optsWithGlobals<GlobalOptions>();
  const address = await storeAddress(store, process.env);
  if (address.kind === "local") {
    const tasks = await Tasks.open({ dataDir });
    return { kind: "local", store: tasks, tasks, close: () => Promise.resolve() };
  }
  const fleet = await openFleet(address);
  return { kind: "fleet", store: fleet, fleet, address, close: () => fleet.close() };
}

/**
 * Opens this machine's store, for a verb that needs a task's directory here; refuses when the
 * command names a fleet's store.
 */
export async function openTasks(command: Command): Promise<Tasks> {
  const { dataDir, store } = command.optsWithGlobals<GlobalOptions>();
  const address = await storeAddress(store, process.env);
  if (address.kind === "fleet") {
    throw new LocalOnlyVerbError(
      `\`warden ${command.name()}\` works on this machine's tasks only, and the store named by ${address.from} is a fleet's`,
    );
  }
  return Tasks.open({ dataDir });
}

/**
 * Opens this machine's store whatever store the command names: for a verb that looks at this
 * machine itself (doctor), not at tasks.
 */
export async function openMachineTasks(command: Command): Promise<Tasks> {
  const { dataDir } = command.optsWithGlobals<GlobalOptions>();
  return Tasks.open({ dataDir });
}

/** Runs `act` on the open store and closes it after, however `act` ends. */
export async function withStore<T>(
  command: Command,
  act: (open: OpenStore) => Promise<T>,
): Promise<T> {
  const open = await openStore(command);
  try {
    return await act(open);
  } finally {
    await open.close();
  }
}

/** For repeatable options: each occurrence is added to the list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

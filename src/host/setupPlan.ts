// A task's setup from the host's side: checked when the task is made, its variables read at each
// attach, and, at each attach, whether it runs or starts from the cache's snapshot.
import { parseAllowList } from "../egress/index.js";
import { errorMessage } from "../lang/index.js";
import {
  checkSettings,
  cleanLine,
  DEFAULT_SETUP_TIMEOUT_SECONDS,
  SETUP_LIMITS,
  type SetupSettings,
} from "../protocol/index.js";
import { agentVariables, checkEnvNames } from "./agentVariables.js";
import { BadTaskOptionError } from "./errors.js";
import type { HostSettings } from "./hostSettings.js";
import { setupCacheKey, SETUP_CACHE_LIMITS, takeSnapshot } from "./setupCache/index.js";

/** What a creator gives for a task's setup: the flags and the config file's keys, merged. */
export interface SetupInput {
  commands?: string[];
  goal?: string;
  timeoutSeconds?: number;
  allow?: string[];
  presets?: string[];
  envNames?: string[];
  /** Paths and globs the cache key reads at the base; empty: the lockfiles. */
  key?: string[];
}

export type StoredSetup = NonNullable<HostSettings["setup"]>;

/**
 * Checks a setup as the task will store it; undefined when it has neither commands nor a goal.
 * Throws BadTaskOptionError, BadAllowEntryError, UnknownPresetError or BadEnvNameError.
 */
export function checkSetup(input: SetupInput, agent: string): StoredSetup | undefined {
  const commands = input.commands ?? [];
  if (commands.length === 0 && input.goal === undefined) {
    const given = [input.allow, input.presets, input.envNames, input.key].some(
      (list) => (list ?? []).length > 0,
    );
    if (given || input.timeoutSeconds !== undefined) {
      throw new BadTaskOptionError("setup options were given, but no setup to run", {
        hint: "name the setup with --setup CMD or --setup-goal TEXT (or setup in .warden/config.yaml)",
      });
    }
    return undefined;
  }
  if (input.goal !== undefined && agent === "command") {
    throw new BadTaskOptionError("the command agent takes no setup goal: it has no prompt to run", {
      hint: "give the setup as commands with --setup CMD",
    });
  }
  const allow = input.allow ?? [];
  const presets = input.presets ?? [];
  parseAllowList(allow, presets);
  const envNames = checkEnvNames(input.envNames ?? []);
  const key = input.key ?? [];
  if (key.length > SETUP_CACHE_LIMITS.keyPatterns) {
    throw new BadTaskOptionError(
      `the setup's cache key names more than ${SETUP_CACHE_LIMITS.keyPatterns} paths`,
      { hint: "name the lockfiles setup reads, not the whole tree" },
    );
  }
  const timeoutSeconds = input.timeoutSeconds ?? DEFAULT_SETUP_TIMEOUT_SECONDS;
  const stored: StoredSetup = {
    commands,
    ...(input.goal === undefined ? {} : { goal: input.goal }),
    timeoutSeconds,
    allow,
    presets,
    envNames,
    key,
  };
  // What the runner will check, checked now: a setup it would refuse is refused here.
  try {
    checkSettings({ agent: "command", command: ["true"], setup: guestSetup(stored, false, false) });
  } catch (error) {
    throw new BadTaskOptionError(
      `the setup is not one warden runs: ${cleanLine(errorMessage(error))}`,
      {
        hint: `at most ${SETUP_LIMITS.commands} commands of ${SETUP_LIMITS.commandBytes} bytes, a timeout from 1 s to ${SETUP_LIMITS.timeoutSeconds} s`,
      },
    );
  }
  return stored;
}

/** The setup as task.json carries it. Pure. */
export function guestSetup(setup: StoredSetup, restore: boolean, snapshot: boolean): SetupSettings {
  return {
    commands: setup.commands,
    ...(setup.goal === undefined ? {} : { goal: setup.goal }),
    timeoutSeconds: setup.timeoutSeconds,
    envNames: setup.envNames,
    restore,
    snapshot,
  };
}

/** The values of the setup's variables; throws MissingEnvError or BadTaskOptionError. */
export function setupVariables(
  host: HostSettings,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const values = agentVariables(host.setup?.envNames ?? [], env);
  const bytes = Object.entries(values).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value),
    0,
  );
  if (bytes > SETUP_LIMITS.envBytes) {
    throw new BadTaskOptionError(
      `the setup's variables hold ${bytes} bytes, over ${SETUP_LIMITS.envBytes}`,
      { hint: "pass files, not their contents, in setup variables" },
    );
  }
  return values;
}

/** How this attach's setup goes. */
export type SetupAttach =
  | { readonly kind: "none" }
  /** The cache had the snapshot: it is at `snapshot`, to go into the share; setup does not run. */
  | {
      readonly kind: "restore";
      readonly setup: StoredSetup;
      readonly snapshot: string;
      readonly bytes: number;
    }
  /** Setup runs; its snapshot is kept under `key` when there is one. */
  | { readonly kind: "run"; readonly setup: StoredSetup; readonly key: string | undefined };

export interface SetupAttachInput {
  readonly dataDir: string;
  readonly host: HostSettings;
  readonly base: string;
  /** Where a cached snapshot is copied to, in the task's directory. */
  readonly restorePath: string;
  readonly warn: (text: string) => void;
  readonly evicted: (why: string) => void;
}

/**
 * Looks the setup up in the cache: a snapshot whose copy matches its digest is restored; a
 * damaged one is evicted and setup runs. A key that cannot be read means setup runs uncached.
 */
export async function planSetupAttach(input: SetupAttachInput): Promise<SetupAttach> {
  const setup = input.host.setup;
  if (setup === undefined) return { kind: "none" };
  let key: string;
  try {
    key = await setupCacheKey({
      gitDir: input.host.gitDir,
      base: input.base,
      patterns: setup.key,
      commands: setup.commands,
      goal: setup.goal,
      envNames: setup.envNames,
      agent: input.host.guest.agent,
    });
  } catch (error) {
    input.warn(
      `the setup's cache key could not be read, so setup runs uncached: ${errorMessage(error)}`,
    );
    return { kind: "run", setup, key: undefined };
  }
  const found = await takeSnapshot(input.dataDir, key, input.restorePath);
  switch (found.kind) {
    case "hit":
      return { kind: "restore", setup, snapshot: input.restorePath, bytes: found.entry.bytes };
    case "evicted":
      input.evicted(found.why);
      return { kind: "run", setup, key };
    case "miss":
      return { kind: "run", setup, key };
  }
}

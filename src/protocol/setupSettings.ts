// The setup step as task.json carries it: the commands and the goal to run before the agent,
// their time limit, the names (never the values) of the variables given to setup alone, and
// whether the host put a cached snapshot of a past setup into the share instead.
import * as z from "zod/mini";
import { miniSchema } from "./miniSchema.js";
import { SETUP_LIMITS } from "./limits.js";

/** A portable variable name, as task.json's `env` takes them. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The setup's time limit when neither a flag nor a config file sets one: the seed's 10 minutes. */
export const DEFAULT_SETUP_TIMEOUT_SECONDS = 10 * 60;

const bounded = (max: number, what: string) =>
  z.string().check(
    z.minLength(1, `${what} is empty`),
    z.refine((t) => Buffer.byteLength(t) <= max, `${what} is over ${max} bytes`),
    z.refine((t) => !t.includes("\0"), `${what} has a NUL byte`),
  );

export const setupSettingsSchema = miniSchema(() =>
  z
    .strictObject({
      /** Each run by `sh -c` in the workspace, in order; the first that fails ends the setup. */
      commands: z
        .array(bounded(SETUP_LIMITS.commandBytes, "a setup command"))
        .check(z.maxLength(SETUP_LIMITS.commands)),
      /** A prompt for the task's agent, in a run of its own before the task's prompt. */
      goal: z.optional(bounded(SETUP_LIMITS.goalBytes, "the setup goal")),
      timeoutSeconds: z.int().check(z.gte(1), z.lte(SETUP_LIMITS.timeoutSeconds)),
      /** Names of the variables the host gives setup over the channel; their values never travel here. */
      envNames: z
        .array(z.string().check(z.regex(ENV_NAME, "not a portable variable name")))
        .check(z.maxLength(SETUP_LIMITS.envNames)),
      /** The share holds setup.tar, the snapshot of a past setup: restore it and run nothing. */
      restore: z.boolean(),
      /** Send the host a snapshot of what setup changed, for later tasks to start from. */
      snapshot: z.boolean(),
    })
    .check(
      z.refine(
        (s) => s.commands.length > 0 || s.goal !== undefined,
        "a setup needs a command or a goal",
      ),
    ),
);

export type SetupSettings = z.infer<ReturnType<typeof setupSettingsSchema>>;

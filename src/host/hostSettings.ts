// What the host keeps in a task's spec.json `settings`: the agent's settings (task.json without
// the ids, which come from the spec at each attach) and the host's own choices for running it.
// Values of variables passed in with --env are never stored: only their names.
import * as z from "zod/mini";
import { errorMessage } from "../lang/index.js";
import {
  checkSettings,
  firstIssue,
  SETUP_LIMITS,
  type SetupSettings,
  LIMITS,
  miniSchema,
  OID,
  workspaceNameProblem,
  type Settings,
} from "../protocol/index.js";
import { NotAHostTaskError, noHostSettings } from "./errors.js";
import { HOST_LIMITS } from "./limits.js";
import { MAX_TOOL_RULE_BYTES, MAX_TOOL_RULES } from "./channel/index.js";

/** The sandbox backends a task may name. `none` only ever when asked for. */
export const SANDBOX_CHOICES = ["bwrap", "none"] as const;
export type SandboxChoice = (typeof SANDBOX_CHOICES)[number];

/** A variable name as a shell writes it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How many --allow entries, presets and --env names a task may have: a gate, not a firewall table. */
export const MAX_ALLOW_ENTRIES = 256;
export const MAX_PRESETS = 32;
export const MAX_ENV_NAMES = 64;
/** A fleet's required labels: as many as a person types, short names and values. */
export const MAX_REQUIRED_LABELS = 32;
export const LABEL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const MAX_LABEL_VALUE_BYTES = 256;

/** A list of texts of at most `max` entries. */
const texts = (max: number, item = z.string()) => z.array(item).check(z.maxLength(max));

/** A non-negative whole number, as a bound of the sandbox is. */
const bound = () => z.optional(z.int().check(z.gte(0)));

// Made on its first use: building a schema takes a command's start milliseconds, and a schema of
// zod's mini build about half as many as a classic one (see protocol/miniSchema.ts).
const hostSettingsSchema = miniSchema(() =>
  z.strictObject({
    version: z.literal(1),
    /** task.json without taskId, parentTaskId and hop. */
    guest: z.record(z.string(), z.unknown()),
    sandbox: z.enum(SANDBOX_CHOICES),
    allow: texts(MAX_ALLOW_ENTRIES),
    presets: texts(MAX_PRESETS),
    envNames: texts(MAX_ENV_NAMES, z.string().check(z.regex(ENV_NAME))),
    /** The user's git directory, where the host borrows objects from and fetch writes. */
    gitDir: z.string().check(z.minLength(1)),
    objectFormat: z.enum(["sha1", "sha256"]),
    limits: z.optional(
      z.strictObject({ memoryBytes: bound(), processes: bound(), diskBytes: bound() }),
    ),
    /**
     * How the host answers the agent's permission prompts beyond the agent's own `approve`
     * policy: allow and deny rules by tool and pattern (see channel/toolRules.ts), and how long a
     * prompt waits for a person under `prompt`.
     */
    approval: z.optional(
      z.strictObject({
        allow: texts(MAX_TOOL_RULES, z.string().check(z.maxLength(MAX_TOOL_RULE_BYTES))),
        deny: texts(MAX_TOOL_RULES, z.string().check(z.maxLength(MAX_TOOL_RULE_BYTES))),
        timeoutSeconds: z.optional(
          z.int().check(z.gte(1), z.lte(HOST_LIMITS.maxApprovalTimeoutMs / 1000)),
        ),
      }),
    ),
    /**
     * The setup before the agent (docs/cli.md "Setup"): its commands and goal, time limit, the
     * hosts and presets it may reach beside the agent's, the names of its own variables, and
     * the paths and globs its cache key reads at the base (empty: the lockfiles).
     */
    setup: z.optional(
      z.strictObject({
        commands: texts(SETUP_LIMITS.commands),
        goal: z.optional(z.string()),
        timeoutSeconds: z.int().check(z.gte(1), z.lte(SETUP_LIMITS.timeoutSeconds)),
        allow: texts(MAX_ALLOW_ENTRIES),
        presets: texts(MAX_PRESETS),
        envNames: texts(SETUP_LIMITS.envNames, z.string().check(z.regex(ENV_NAME))),
        key: texts(64, z.string().check(z.minLength(1), z.maxLength(4096))),
      }),
    ),
    /**
     * The repositories bound beside the task's own (--workspace), in binding order, each
     * resolved to a commit when the task was made (see workspaceBindings.ts).
     */
    workspaces: z.optional(
      z
        .array(
          z.strictObject({
            name: z.string().check(z.refine((n) => workspaceNameProblem(n) === undefined)),
            repo: z.string().check(z.minLength(1)),
            gitDir: z.string().check(z.minLength(1)),
            objectFormat: z.enum(["sha1", "sha256"]),
            base: z.string().check(z.regex(OID)),
          }),
        )
        .check(z.maxLength(LIMITS.workspaces)),
    ),
    /** The --skills directory (its real path) the share's copy of the skills is made from. */
    skillsDir: z.optional(z.string().check(z.minLength(1))),
    /**
     * In a fleet, the labels a worker must have to run the task (`--require gpu=1`): a worker
     * without every one of them leaves the task to another.
     */
    require: z.optional(
      z
        .record(
          z.string().check(z.regex(LABEL_NAME)),
          z.string().check(z.maxLength(MAX_LABEL_VALUE_BYTES)),
        )
        .check(z.refine((r) => Object.keys(r).length <= MAX_REQUIRED_LABELS)),
    ),
  }),
);

export type HostSettings = Omit<z.infer<ReturnType<typeof hostSettingsSchema>>, "guest"> & {
  guest: Settings;
};

/**
 * Fields of task.json that are never stored: the ids of the environment protocol (the spec
 * holds them) and `env`, whose values are read from the host's environment at each attach.
 */
const UNSTORED_FIELDS = ["taskId", "parentTaskId", "hop", "env"] as const;

/** What a creator gives hostSettings: the agent's settings still unchecked. */
export type HostSettingsInput = Omit<HostSettings, "guest" | "version"> & {
  guest: Record<string, unknown>;
};

/** Builds the settings object to store; checks the agent's settings as the guest will. */
export function hostSettings(input: HostSettingsInput): Record<string, unknown> {
  const guest: Record<string, unknown> = { ...checkSettings(input.guest) };
  for (const field of UNSTORED_FIELDS) guest[field] = undefined;
  const value = { ...input, version: 1, guest: JSON.parse(JSON.stringify(guest)) as unknown };
  return hostSettingsSchema().parse(value);
}

/** Reads the settings of a task from its spec; refuses a task the host did not make. */
export function readHostSettings(id: string, settings: Record<string, unknown>): HostSettings {
  const parsed = hostSettingsSchema().safeParse(settings);
  if (!parsed.success) {
    throw new NotAHostTaskError(noHostSettings(id, firstIssue(parsed.error, "settings")));
  }
  try {
    return { ...parsed.data, guest: checkSettings(parsed.data.guest) };
  } catch (error) {
    throw new NotAHostTaskError(noHostSettings(id, errorMessage(error)));
  }
}

/**
 * task.json for one attach: the stored agent settings, the ids of the spec, the agent's extra
 * environment (the placeholder API key, the values of the --env names), and what the host
 * decided for this attach (the agent's program inside the sandbox).
 */
export function guestSettings(
  host: HostSettings,
  spec: { id: string; parent: string | null; hop: number },
  env: Readonly<Record<string, string>> = {},
  overrides: { agentProgram?: string; setup?: SetupSettings } = {},
): Settings {
  return checkSettings({
    ...host.guest,
    ...overrides,
    ...(Object.keys(env).length === 0 ? {} : { env }),
    taskId: spec.id,
    ...(spec.parent === null ? {} : { parentTaskId: spec.parent }),
    ...(spec.hop === 0 ? {} : { hop: spec.hop }),
  });
}

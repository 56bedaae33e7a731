// What the host keeps in a task's spec.json `settings`: the agent's settings (task.json without
// the ids, which come from the spec at each attach) and the host's own choices for running it.
// Values of variables passed in with --env are never stored: only their names.
import { z } from "zod";
import { errorMessage, memo } from "../lang/index.js";
import {
  checkSettings,
  firstIssue,
  SETUP_LIMITS,
  type SetupSettings,
  LIMITS,
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

// Made on its first use (memo): building a schema of zod's takes a command's start milliseconds.
const hostSettingsSchema = memo(() =>
  z
    .object({
      version: z.literal(1),
      /** task.json without taskId, parentTaskId and hop. */
      guest: z.record(z.string(), z.unknown()),
      sandbox: z.enum(SANDBOX_CHOICES),
      allow: z.array(z.string()).max(MAX_ALLOW_ENTRIES),
      presets: z.array(z.string()).max(MAX_PRESETS),
      envNames: z.array(z.string().regex(ENV_NAME)).max(MAX_ENV_NAMES),
      /** The user's git directory, where the host borrows objects from and fetch writes. */
      gitDir: z.string().min(1),
      objectFormat: z.enum(["sha1", "sha256"]),
      limits: z
        .object({
          memoryBytes: z.number().int().min(0).optional(),
          processes: z.number().int().min(0).optional(),
          diskBytes: z.number().int().min(0).optional(),
        })
        .strict()
        .optional(),
      /**
       * How the host answers the agent's permission prompts beyond the agent's own `approve`
       * policy: allow and deny rules by tool and pattern (see channel/toolRules.ts), and how long a
       * prompt waits for a person under `prompt`.
       */
      approval: z
        .object({
          allow: z.array(z.string().max(MAX_TOOL_RULE_BYTES)).max(MAX_TOOL_RULES),
          deny: z.array(z.string().max(MAX_TOOL_RULE_BYTES)).max(MAX_TOOL_RULES),
          timeoutSeconds: z
            .number()
            .int()
            .min(1)
            .max(HOST_LIMITS.maxApprovalTimeoutMs / 1000)
            .optional(),
        })
        .strict()
        .optional(),
      /**
       * The setup before the agent (docs/cli.md "Setup"): its commands and goal, time limit, the
       * hosts and presets it may reach beside the agent's, the names of its own variables, and
       * the paths and globs its cache key reads at the base (empty: the lockfiles).
       */
      setup: z
        .object({
          commands: z.array(z.string()).max(SETUP_LIMITS.commands),
          goal: z.string().optional(),
          timeoutSeconds: z.number().int().min(1).max(SETUP_LIMITS.timeoutSeconds),
          allow: z.array(z.string()).max(MAX_ALLOW_ENTRIES),
          presets: z.array(z.string()).max(MAX_PRESETS),
          envNames: z.array(z.string().regex(ENV_NAME)).max(SETUP_LIMITS.envNames),
          key: z.array(z.string().min(1).max(4096)).max(64),
        })
        .strict()
        .optional(),
      /**
       * The repositories bound beside the task's own (--workspace), in binding order, each
       * resolved to a commit when the task was made (see workspaceBindings.ts).
       */
      workspaces: z
        .array(
          z
            .object({
              name: z.string().refine((n) => workspaceNameProblem(n) === undefined),
              repo: z.string().min(1),
              gitDir: z.string().min(1),
              objectFormat: z.enum(["sha1", "sha256"]),
              base: z.string().regex(OID),
            })
            .strict(),
        )
        .max(LIMITS.workspaces)
        .optional(),
      /** The --skills directory (its real path) the share's copy of the skills is made from. */
      skillsDir: z.string().min(1).optional(),
      /**
       * In a fleet, the labels a worker must have to run the task (`--require gpu=1`): a worker
       * without every one of them leaves the task to another.
       */
      require: z
        .record(z.string().regex(LABEL_NAME), z.string().max(MAX_LABEL_VALUE_BYTES))
        .refine((r) => Object.keys(r).length <= MAX_REQUIRED_LABELS)
        .optional(),
    })
    .strict(),
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

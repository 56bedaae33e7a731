// task.json: how the guest runs the task. Checked by the host before it writes the share and
// by the guest before it runs anything; both refuse unknown fields.
import * as z from "zod/mini";
import { miniSchema } from "./miniSchema.js";
import { firstIssue } from "./schemaIssue.js";
import { BadSettingsError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { parseJsonStrict } from "./json.js";
import { MAX_HOP, TASK_ID } from "./names.js";
import { AGENTS, AGENT_ONLY_FIELDS, agentTakes } from "./agentProfiles.js";
import { setupSettingsSchema } from "./setupSettings.js";
import { mcpServersSchema, skillNamesSchema } from "./mcpServers.js";
import { resumeSettingsSchema } from "./checkpoint.js";

export { AGENTS, agentTakes, type AgentField, type AgentName } from "./agentProfiles.js";

/** How an agent answers its permission prompts, for agents that ask (see docs/agents.md). */
export const APPROVE_POLICIES = ["always", "never", "prompt"] as const;
export type ApprovePolicy = (typeof APPROVE_POLICIES)[number];

/** The most argv entries a `command` agent may have, and the bytes of one. */
export const MAX_COMMAND_ARGS = 4096;
export const MAX_COMMAND_ARG_BYTES = 128 * 1024;

// Control and format characters (bidi overrides among them) anywhere in a setting would reach a
// command line, a commit header or a terminal.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

/** An environment variable the host passes to the agent: a portable name, never warden's own. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** How many variables the host may pass to the agent, and the bytes of one value. */
export const MAX_AGENT_ENV = 64;
export const MAX_AGENT_ENV_VALUE_BYTES = 64 * 1024;

/** The most tool patterns one allow or deny list may hold, and the bytes of one pattern. */
export const MAX_TOOL_PATTERNS = 256;
export const MAX_TOOL_PATTERN_BYTES = 1024;

/** Text appended to an agent's system prompt: instructions, not a document. */
export const MAX_APPEND_SYSTEM_PROMPT_BYTES = 64 * 1024;

/** The absolute path of an agent's program inside the sandbox. */
export const MAX_AGENT_PROGRAM_BYTES = 4096;

/**
 * A tool name (`Bash`, `mcp__server__tool`, `mcp__server__*`) with an optional rule in
 * parentheses (`Bash(git commit:*)`, `WebFetch(domain:example.com)`). It starts with a letter,
 * so it can never pass for an option of the agent's command line.
 */
const TOOL_PATTERN = /^[A-Za-z][A-Za-z0-9_*.-]*(\(.*\))?$/su;

const count = (max: number) => z.int().check(z.gte(0), z.lte(max));

/** A string no longer than `max` bytes of UTF-8 (not UTF-16 code units, as its length counts). */
const withinBytes = (max: number, message: string) =>
  z.refine<string>((t) => Buffer.byteLength(t) <= max, message);

// The limit is in bytes of UTF-8, as its name says, not in UTF-16 code units.
const settingText = miniSchema(() =>
  z.string().check(withinBytes(LIMITS.settingTextBytes, `over ${LIMITS.settingTextBytes} bytes`)),
);

const toolPatterns = miniSchema(() =>
  z
    .array(
      z.string().check(
        withinBytes(
          MAX_TOOL_PATTERN_BYTES,
          `a tool pattern is over ${MAX_TOOL_PATTERN_BYTES} bytes`,
        ),
        z.refine((p) => !CONTROL.test(p), "a tool pattern has a control character"),
        z.refine(
          (p) => TOOL_PATTERN.test(p),
          "not a tool pattern: a tool name such as Bash or mcp__server__tool, then an optional rule in parentheses",
        ),
      ),
    )
    .check(z.maxLength(MAX_TOOL_PATTERNS)),
);

// A system prompt may have lines and tabs; every other control character is refused.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const PROMPT_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

/**
 * The name and email of the commits made in the workspace. Git would take a newline, a NUL or an
 * angle bracket into the commit header as a forged field or a second email, so they are refused;
 * an empty one git itself refuses. Made on first use, as every schema here.
 */
export const gitNameSchema = miniSchema(() =>
  settingText().check(
    z.refine((n) => n.length > 0, "gitName is empty"),
    z.refine((n) => !CONTROL.test(n) && !/[<>]/.test(n), "gitName has a control character, < or >"),
  ),
);
export const gitEmailSchema = miniSchema(() =>
  settingText().check(
    z.refine((e) => e.length > 0, "gitEmail is empty"),
    z.refine(
      (e) => !CONTROL.test(e) && !/[<>\s]/.test(e),
      "gitEmail has a space, control character, < or >",
    ),
  ),
);

/** Extra environment for the agent: portable names, never WARDEN_*, bounded in count and size. */
const agentEnvSchema = () =>
  z
    .record(
      z.string(),
      z.string().check(
        z.refine((v) => !v.includes("\0"), "a value has a NUL byte"),
        withinBytes(
          MAX_AGENT_ENV_VALUE_BYTES,
          `a value is over ${MAX_AGENT_ENV_VALUE_BYTES} bytes`,
        ),
      ),
    )
    .check(
      z.superRefine((env, ctx) => {
        const names = Object.keys(env);
        if (names.length > MAX_AGENT_ENV) {
          ctx.addIssue({ code: "custom", message: `more than ${MAX_AGENT_ENV} variables` });
        }
        for (const name of names) {
          if (!ENV_NAME.test(name)) {
            ctx.addIssue({ code: "custom", message: "not a portable variable name", path: [name] });
          } else if (name.toUpperCase().startsWith("WARDEN_")) {
            ctx.addIssue({
              code: "custom",
              message: "WARDEN_ variables are warden's own",
              path: [name],
            });
          }
        }
      }),
    );

// The schema is made on its first use: building it takes a command's start milliseconds, and
// most commands never check settings. Every sandbox builds it at its start (miniSchema.ts).
export const settingsSchema = miniSchema(() =>
  z
    .strictObject({
      /** The task these settings belong to, for the environment protocol. */
      taskId: z.optional(z.string().check(z.regex(TASK_ID, "not a task id"))),
      parentTaskId: z.optional(z.string().check(z.regex(TASK_ID, "not a task id"))),
      hop: z.optional(z.int().check(z.gte(0), z.lte(MAX_HOP))),
      agent: z.enum(AGENTS),
      /** The argv of the `command` agent; the prompt arrives on its stdin. */
      command: z.optional(
        z
          .array(
            z.string().check(
              z.maxLength(MAX_COMMAND_ARG_BYTES),
              z.refine((a) => !a.includes("\0"), "an argument has a NUL byte"),
            ),
          )
          .check(z.minLength(1), z.maxLength(MAX_COMMAND_ARGS)),
      ),
      /**
       * Extra environment for the agent: the placeholder API key, and the variables the user
       * passed in. WARDEN_* names belong to the environment protocol and are refused.
       */
      env: z.optional(agentEnvSchema()),
      /** Tool patterns the agent may use without asking (`--allowedTools`). */
      allowedTools: z.optional(toolPatterns()),
      /** Tool patterns the agent may never use (`--disallowedTools`); they win over allowedTools. */
      disallowedTools: z.optional(toolPatterns()),
      /** Text appended to the agent's own system prompt. */
      appendSystemPrompt: z.optional(
        z.string().check(
          z.minLength(1),
          withinBytes(
            MAX_APPEND_SYSTEM_PROMPT_BYTES,
            `over ${MAX_APPEND_SYSTEM_PROMPT_BYTES} bytes`,
          ),
          z.refine((t) => !PROMPT_CONTROL.test(t), "has a control character"),
        ),
      ),
      /** How permission prompts are answered; absent means "always" (unattended: the sandbox is the bound). */
      approve: z.optional(z.enum(APPROVE_POLICIES)),
      /** The agent's program inside the sandbox, an absolute path; absent: its usual name on PATH. */
      agentProgram: z.optional(
        z.string().check(
          withinBytes(MAX_AGENT_PROGRAM_BYTES, `over ${MAX_AGENT_PROGRAM_BYTES} bytes`),
          z.refine((p) => p.startsWith("/"), "not an absolute path"),
          z.refine((p) => !CONTROL.test(p), "has a control character"),
        ),
      ),
      model: z.optional(
        settingText().check(
          z.refine((m) => !m.startsWith("-"), "model starts with '-'"),
          z.refine(
            (m) => !/\s/.test(m) && !CONTROL.test(m),
            "model has a space or control character",
          ),
        ),
      ),
      maxTurns: z.optional(count(LIMITS.maxTurns)),
      maxBudgetUSD: z.optional(z.number().check(z.gte(0), z.lte(LIMITS.maxBudgetUSD))),
      timeoutSeconds: z.optional(count(LIMITS.timeoutSeconds)),
      gitName: z.optional(gitNameSchema()),
      gitEmail: z.optional(gitEmailSchema()),
      /**
       * The directory of the repository the agent runs in, relative to its top (`--repo` named a
       * subdirectory); absent: the top. Plain names only: no `.`, `..` or `.git` part, no control
       * character, so it can never lead out of the workspace or into git's own files.
       */
      workdir: z.optional(
        settingText().check(
          z.refine(
            (d) =>
              d
                .split("/")
                .every((part) => part !== "" && part !== "." && part !== ".." && part !== ".git"),
            "workdir is not a relative path of plain names",
          ),
          z.refine((d) => !CONTROL.test(d), "workdir has a control character"),
        ),
      ),
      /**
       * Whether a person may step inside while the task runs (`warden exec`, `shell`, `cp`): off
       * by default, since it runs any command in the sandbox beside the agent.
       */
      allowExec: z.optional(z.boolean()),
      /** Whether the runner keeps serving after the agent ends, until `warden stop` or the deadline. */
      debug: z.optional(z.boolean()),
      /** The setup step before the agent (setupSettings.ts); absent: the agent starts at once. */
      setup: z.optional(setupSettingsSchema()),
      /** MCP servers the agent is given, by name (see mcpServers.ts). */
      mcpServers: z.optional(mcpServersSchema()),
      /** The skills the share holds (`skills/NAME/`), placed where the agent looks for them. */
      skills: z.optional(skillNamesSchema()),
      /** The checkpoint the share holds, which this attach starts from (checkpoint.ts). */
      resume: z.optional(resumeSettingsSchema()),
    })
    .check(
      z.superRefine((s, ctx) => {
        if (s.debug === true && s.allowExec !== true) {
          ctx.addIssue({
            code: "custom",
            message: "debug needs allowExec: a hold nobody may step into serves nobody",
            path: ["debug"],
          });
        }
        if (s.agent === "command" && s.command === undefined) {
          ctx.addIssue({
            code: "custom",
            message: "the command agent needs a command",
            path: ["command"],
          });
        }
        if (s.agent === "command" && (s.mcpServers !== undefined || s.skills !== undefined)) {
          ctx.addIssue({
            code: "custom",
            message: "the command agent takes no MCP servers or skills",
            path: [s.mcpServers !== undefined ? "mcpServers" : "skills"],
          });
        }
        for (const field of AGENT_ONLY_FIELDS) {
          if (s[field] !== undefined && !agentTakes(s.agent, field)) {
            ctx.addIssue({
              code: "custom",
              message: `the ${s.agent} agent does not take ${field}`,
              path: [field],
            });
          }
        }
      }),
    ),
);

export type Settings = z.infer<ReturnType<typeof settingsSchema>>;

/** Checks a settings value (already parsed JSON, or built in code). Throws BadSettingsError. */
export function checkSettings(value: unknown): Settings {
  const parsed = settingsSchema().safeParse(value);
  if (!parsed.success) {
    throw new BadSettingsError(`bad settings: ${firstIssue(parsed.error, "task.json")}`, {
      hint: "fix task.json: unknown fields, negative or non-finite numbers and unsafe names are refused",
    });
  }
  return parsed.data;
}

/** Parses the bytes of task.json: size-limited, UTF-8, one JSON value and nothing after it. */
export function parseSettings(bytes: Uint8Array): Settings {
  const value = parseJsonStrict(
    bytes,
    LIMITS.settingsBytes,
    "task.json",
    (m) => new BadSettingsError(m),
  );
  return checkSettings(value);
}

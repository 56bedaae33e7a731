// Every key a config file may hold, in one table that later issues extend: its schema, whether a
// repository's own file may set it, and what it means. The files' schema is built from it.
//
// A repository's .warden/config.yaml is committed content that the user may not have written (a
// cloned repository), and it is read on every run there. So it may set what shapes the work
// (agent, model, turns, time limits) and may narrow what the agent may do (deny rules); it may
// not widen the network (allow, presets), let tool calls through without asking (allowTools,
// approve), loosen the bounds on this machine (memory, processes, disk), spend more of the
// user's money (maxBudgetUsd, dailyBudgetUsd), choose whose name the commits carry (gitName,
// gitEmail), how many tasks this machine runs at once (maxRunning), or what runs or is told when
// a task ends (notify, webhook), or which other repositories of the user's disk are read into the
// sandbox (workspaces: a cloned repository's file could name ~/secrets). There is no key for the
// sandbox at all: `--sandbox none` is a choice made on the command line, every time.
import { z } from "zod";
import { memo } from "../lang/index.js";
import { AGENTS } from "../protocol/index.js";
import { parseDuration } from "../store/index.js";
import { CONFIG_LIMITS } from "./limits.js";

const text = memo(() => z.string().min(1, "is empty").max(CONFIG_LIMITS.textBytes, "is too long"));
const list = memo(() =>
  z
    .array(text(), "is not a list of strings")
    .max(CONFIG_LIMITS.listEntries, `has more than ${CONFIG_LIMITS.listEntries} entries`),
);
const count = memo(() => z.int("is not a whole number").min(0, "is below 0"));

/** A fleet's server: nats:// or tls://, as the NATS client takes it. */
const storeUrl = memo(() =>
  text().regex(/^(nats|tls):\/\/[^\s]+$/, "is not a nats:// or tls:// URL"),
);
const absolutePath = memo(() => text().regex(/^\//, "is not an absolute path"));

/** A duration (`30m`, `1h30m`) or a whole number of seconds, as the flags take them. */
const duration = memo(() =>
  z.union(
    [
      count(),
      text().refine((value) => parseDuration(value) !== undefined, "is not a duration such as 30m"),
    ],
    "is not a duration such as 30m or a number of seconds",
  ),
);

/** A size (`512M`, `4G`) or a number of bytes, as the flags take them. */
const size = memo(() =>
  z.union(
    [count(), text().regex(/^\d+(?:\.\d+)?\s*[kmgt]?i?b?$/i, "is not a size such as 512M or 4G")],
    "is not a size such as 4G or a number of bytes",
  ),
);

interface KeySpec {
  /** Made when a file is checked: building every key's schema took milliseconds of each start. */
  schema: () => z.ZodType;
  /** Whether a repository's own file may set it (see the top of this file for why). */
  repository: boolean;
  /** What it means, for `warden config` and the docs. */
  about: string;
}

export const CONFIG_KEYS = {
  agent: {
    schema: () => z.enum(AGENTS, `is not one of ${AGENTS.join(", ")}`),
    repository: true,
    about: "the agent to run (--agent)",
  },
  model: { schema: text, repository: true, about: "the model the agent uses (--model)" },
  maxTurns: { schema: count, repository: true, about: "the most turns (--max-turns)" },
  maxBudgetUsd: {
    schema: () => z.number("is not a number").min(0, "is below 0"),
    repository: false,
    about: "the most the agent may spend, in US dollars (--max-budget-usd)",
  },
  dailyBudgetUsd: {
    schema: () => z.number("is not a number").min(0, "is below 0"),
    repository: false,
    about:
      "the most all tasks of a data directory may spend in one UTC day, in US dollars; 0 for no cap",
  },
  timeout: {
    schema: duration,
    repository: true,
    about: "the agent's time limit (--timeout)",
  },
  deadline: {
    schema: () =>
      text().refine((value) => parseDuration(value) !== undefined, "is not a duration such as 2h"),
    repository: true,
    about: "how long after its creation a task must have ended (--deadline)",
  },
  allow: { schema: list, repository: false, about: "hosts the agent may reach (--allow)" },
  presets: { schema: list, repository: false, about: "preset lists of hosts (--preset)" },
  notify: {
    schema: list,
    repository: false,
    about: "commands `warden serve` runs for each notification (--notify)",
  },
  webhook: {
    schema: () =>
      z.array(
        text().refine((value) => /^https?:\/\//.test(value), "is not an http(s) URL"),
        "is not a list of URLs",
      ),
    repository: false,
    about: "URLs `warden serve` posts each notification to (--webhook)",
  },
  approve: {
    schema: () => z.enum(["always", "never", "prompt"], "is not one of always, never, prompt"),
    repository: false,
    about: "how permission prompts are answered (--approve)",
  },
  allowTools: {
    schema: list,
    repository: false,
    about: "tool rules allowed (--allow-tool)",
  },
  denyTools: { schema: list, repository: true, about: "tool rules denied (--deny-tool)" },
  memory: {
    schema: size,
    repository: false,
    about: "the sandbox's memory bound (--memory)",
  },
  maxProcesses: {
    schema: count,
    repository: false,
    about: "the sandbox's bound on processes (--max-processes)",
  },
  disk: { schema: size, repository: false, about: "the workspace's disk bound (--disk)" },
  gitName: {
    schema: text,
    repository: false,
    about: "who the task's commits are by (--git-name)",
  },
  gitEmail: { schema: text, repository: false, about: "their email (--git-email)" },
  maxRunning: {
    schema: () =>
      z
        .int("is not a whole number")
        .min(1, "is below 1")
        .max(CONFIG_LIMITS.maxRunning, `is above ${CONFIG_LIMITS.maxRunning}`),
    repository: false,
    about: "background tasks this machine runs at once; the rest wait their turn",
  },
  // A repository may name its setup (commands run inside the sandbox, like the agent), its goal,
  // its time limit and what its cache key reads. The hosts setup may reach beyond the agent's
  // and the variables of this machine it is given come only from the user's own file or flags.
  setup: {
    schema: list,
    repository: true,
    about: "commands run by sh -c in the workspace before the agent (--setup)",
  },
  setupGoal: {
    schema: text,
    repository: true,
    about: "a prompt the agent runs before the task to prepare the workspace (--setup-goal)",
  },
  setupTimeout: {
    schema: duration,
    repository: true,
    about: "the setup's time limit, 10m by default (--setup-timeout)",
  },
  setupAllow: {
    schema: list,
    repository: false,
    about: "hosts setup may reach beside the agent's (--setup-allow)",
  },
  setupPresets: {
    schema: list,
    repository: false,
    about: "preset lists of hosts setup may reach (--setup-preset)",
  },
  setupEnv: {
    schema: list,
    repository: false,
    about: "variables given to setup alone, never to the agent (--setup-env)",
  },
  setupKey: {
    schema: list,
    repository: true,
    about: "paths and globs the setup cache is keyed by; default the lockfiles (--setup-key)",
  },
  workspaces: {
    schema: () =>
      z
        .array(
          text().refine(
            (value) => /^[^=]+=\//.test(value),
            "is not NAME=PATH[@REV] with an absolute PATH",
          ),
          "is not a list of NAME=PATH[@REV]",
        )
        .max(CONFIG_LIMITS.listEntries, `has more than ${CONFIG_LIMITS.listEntries} entries`),
    repository: false,
    about: "other repositories every task binds, NAME=/abs/path[@REV] (--workspace)",
  },
  // A stdio server runs inside the sandbox like the agent, so a repository may name one; an http
  // or sse server is network egress, and its host must be on the allow list, which only the
  // user's own file and flags can widen: the task is refused at create otherwise.
  mcp: {
    schema: () => z.record(z.string(), z.unknown(), "is not a mapping of server names"),
    repository: true,
    about: "MCP servers for the agent by name, as an mcpServers of --mcp-config (--mcp-config)",
  },
  // The directory is read on this machine and copied into the sandbox: a repository naming one
  // would choose which of the user's files the agent sees.
  skills: { schema: text, repository: false, about: "a directory of skills (--skills)" },
  // Stepping inside runs any command beside the agent: only the user may turn it on by default.
  allowExec: {
    schema: () => z.boolean("is not true or false"),
    repository: false,
    about: "let exec, shell and cp step inside running tasks (--allow-exec)",
  },
  // Where this user's tasks go: a repository naming a store would send the user's tasks (and
  // their repository's base) to a server of its author's choosing, so only the user's file may.
  store: {
    schema: () =>
      z.union(
        [
          storeUrl(),
          z.strictObject({
            url: storeUrl(),
            user: text().optional(),
            password: text().optional(),
            nkeySeedFile: absolutePath().optional(),
            credsFile: absolutePath().optional(),
          }),
        ],
        "is not a nats:// URL or a mapping with url and credentials",
      ),
    repository: false,
    about: "the fleet's store, nats://HOST:PORT, with its credentials (--store)",
  },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** The values a config file may hold, each optional. */
export type ConfigValues = {
  [K in ConfigKey]?: z.infer<ReturnType<(typeof CONFIG_KEYS)[K]["schema"]>>;
};

export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

/** A config file's schema: a mapping of known keys only. */
export const configFileSchema = memo((): z.ZodType<ConfigValues> =>
  z.strictObject(
    Object.fromEntries(
      CONFIG_KEY_NAMES.map((key) => [key, (CONFIG_KEYS[key].schema() as z.ZodType).optional()]),
    ),
  ),
);

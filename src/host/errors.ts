// The host's refusals and failures: one class per kind, a stable code, a hint, and the exit
// class the CLI maps to its exit code (usage → 2, operational → 1, bound → 3), as the store does.
import { keyVariablesText, RELAY_APIS, type ApiKind } from "../egress/index.js";
import { cleanLine, WardenError } from "../protocol/index.js";

export type HostExitClass = "usage" | "operational" | "bound";

export abstract class HostError extends WardenError {
  abstract readonly exitClass: HostExitClass;
  declare readonly hint: string;

  constructor(code: string, message: string, hint: string, cause?: unknown) {
    super(code, message, { hint, cause });
  }
}

/** A task in the store that the host did not create, or whose settings it cannot read. */
export class NotAHostTaskError extends HostError {
  readonly exitClass = "usage";
  constructor(id: string, why: string) {
    super(
      "NOT_A_HOST_TASK",
      `task ${id} has no settings warden can run: ${cleanLine(why)}`,
      "create tasks with `warden create` or `warden run`",
    );
  }
}

/** An --env name that is not a variable name, or that warden itself sets. */
export class BadEnvNameError extends HostError {
  readonly exitClass = "usage";
  constructor(name: string, why: string) {
    super(
      "BAD_ENV_NAME",
      `--env ${cleanLine(name)}: ${why}`,
      "pass the name of a variable of your own environment, such as --env NPM_TOKEN",
    );
  }
}

/** A variable named with --env is not set in the environment of the process that runs the task. */
export class MissingEnvError extends HostError {
  readonly exitClass = "operational";
  constructor(name: string) {
    super(
      "MISSING_ENV",
      `the task passes the variable ${name} in, but it is not set here`,
      `set ${name} in the environment of the process that starts the task`,
    );
  }
}

/** The runner (dist/guest/warden-guest.mjs) is not there: warden was not built. */
export class RunnerMissingError extends HostError {
  readonly exitClass = "operational";
  constructor(path: string) {
    super(
      "RUNNER_MISSING",
      `the sandbox runner ${cleanLine(path)} is missing`,
      "build warden first: `npm run build`",
    );
  }
}

/** A sandbox backend that cannot run on this machine. warden never falls back to another. */
export class BackendUnusableError extends HostError {
  readonly exitClass = "operational";
  constructor(name: string, why: string, fix: string) {
    super("SANDBOX_UNAVAILABLE", `the sandbox ${name} cannot run here: ${cleanLine(why)}`, fix);
  }
}

/** fetch or diff on a task that has no verified changes to give. */
export class NoChangesError extends HostError {
  readonly exitClass = "operational";
  constructor(id: string, why: string) {
    super(
      "NO_CHANGES",
      `task ${id} has no changes to fetch: ${why}`,
      "see what happened with `warden show` and `warden logs`",
    );
  }
}

/** fetch or diff on a task that has not finished yet. */
export class TaskNotFinishedError extends HostError {
  readonly exitClass = "operational";
  constructor(id: string, state: string) {
    super(
      "TASK_NOT_FINISHED",
      `task ${id} is ${state}, so it has no results yet`,
      "wait for it with `warden wait`",
    );
  }
}

/** An option of `create` or `run` that is not a usable value. */
export class BadTaskOptionError extends HostError {
  readonly exitClass = "usage";
  constructor(message: string, hint: string) {
    super("BAD_OPTION", message, hint);
  }
}

/** A repository or start commit that a task cannot be made from. */
export class BadRepoError extends HostError {
  readonly exitClass = "usage";
  constructor(message: string, hint: string) {
    super("BAD_REPO", message, hint);
  }
}

/** A git command on the host that failed or was stopped. */
export class GitError extends HostError {
  readonly exitClass = "operational";
  /**
   * What git wrote on stderr when it exited with an error, as it wrote it: for code that reads
   * git's own report, never for a terminal (the message holds the cleaned text).
   */
  readonly gitStderr: string | undefined;
  constructor(
    message: string,
    hint = "check the repository with `git status` and `git fsck`",
    gitStderr?: string,
  ) {
    super("GIT_FAILED", message, hint);
    this.gitStderr = gitStderr;
  }
}

/**
 * A task's changes whose objects git's strict check refuses (a path into .git, a .gitmodules
 * that runs a command, a malformed commit) or whose pack git cannot read: none of it is taken.
 */
export class BadObjectsError extends HostError {
  readonly exitClass = "operational";
  constructor(why: string) {
    super(
      "BAD_OBJECTS",
      `the task's changes fail git's strict object check: ${cleanLine(why)}`,
      "nothing of them reached your repository; they could harm a checkout, so look at what the agent did with `warden logs` before you run it again",
    );
  }
}

/** fetch into a branch that exists, without --force. */
export class BranchExistsError extends HostError {
  readonly exitClass = "operational";
  constructor(branch: string) {
    super(
      "BRANCH_EXISTS",
      `the branch ${cleanLine(branch)} already exists`,
      "pass --force to overwrite it, or --branch NAME for another name",
    );
  }
}

export class BadBranchNameError extends HostError {
  readonly exitClass = "usage";
  constructor(branch: string) {
    super(
      "BAD_BRANCH_NAME",
      `${cleanLine(branch)} is not a valid branch name`,
      "use a name git accepts, such as warden/my-task",
    );
  }
}

/** How each agent's program is installed, in a hint. */
const INSTALL_WORDS: Readonly<Record<string, string>> = {
  claude: "Claude Code (`npm install -g @anthropic-ai/claude-code`)",
  codex: "Codex CLI (`npm install -g @openai/codex`)",
  gemini: "Gemini CLI (`npm install -g @google/gemini-cli`)",
};

/** The agent's program is not on this machine (or not where the task says). */
export class AgentMissingError extends HostError {
  readonly exitClass = "operational";
  constructor(agent: string, program: string, configured: string | undefined) {
    super(
      "AGENT_MISSING",
      configured === undefined
        ? `the ${agent} agent's program ${program} is not on PATH, nor in warden's node_modules`
        : `the ${agent} agent's program ${cleanLine(configured)} is not an executable file`,
      `install ${INSTALL_WORDS[agent] ?? program}, or name its program with --agent-program; \`warden doctor\` shows what it finds`,
    );
  }
}

/**
 * The agent's program cannot run in a sandbox: it lives where no sandbox may look (the user's
 * home), or it is a launcher whose real program is not installed beside it.
 */
export class AgentUnusableError extends HostError {
  readonly exitClass = "operational";
  constructor(
    path: string,
    why: string,
    hint = "install the agent again (for example with `npm install -g`), or pass --agent-program with the path of a working copy",
  ) {
    super(
      "AGENT_UNUSABLE",
      `the agent's program ${cleanLine(path)} cannot be shown to the sandbox: ${why}`,
      hint,
    );
  }
}

/** An agent that talks to an API, and no key for it on the host for the relay to add. */
export class NoApiKeyError extends HostError {
  readonly exitClass = "operational";
  constructor(agent: string, api: ApiKind = "anthropic") {
    const keys = RELAY_APIS[api].keys;
    const missing =
      keys.length === 1
        ? `${keyVariablesText(api)} is not`
        : `neither ${keyVariablesText(api).replace(" or ", " nor ")} is`;
    super(
      "NO_API_KEY",
      `the ${agent} agent needs an API key, and ${missing} set here`,
      `set ${keys[0].variable} in the environment that runs the task; it stays on the host, the sandbox gets a placeholder`,
    );
  }
}

/** approve `prompt` where nothing in the sandbox could ask the host. */
export class ApprovalUnavailableError extends HostError {
  readonly exitClass = "usage";
  constructor(sandbox: string) {
    super(
      "APPROVAL_UNAVAILABLE",
      `approve is "prompt", but the ${sandbox} sandbox has no channel to ask the host through`,
      "use --approve always or never with --allow-tool and --deny-tool rules, or a sandbox that carries the channel (bwrap)",
    );
  }
}

/** The channel's socket path is too long for a unix socket. */
export class ChannelPathError extends HostError {
  readonly exitClass = "operational";
  constructor(path: string) {
    super(
      "CHANNEL_PATH",
      `the socket path ${cleanLine(path)} is too long for a unix socket`,
      "use a data directory with a shorter path (--data-dir or WARDEN_DATA_DIR)",
    );
  }
}

// The host's refusals and failures: one class per kind, a stable code, the hint of what to do,
// and the exit class the CLI maps to its exit code, as the store's are.
import { AGENT_PROFILES, cleanLine, WardenError, type AgentName } from "../protocol/index.js";

/** The root of every error the host raises on purpose. */
export abstract class HostError extends WardenError {}

/** A task in the store that the host did not create, or whose settings it cannot read. */
export class NotAHostTaskError extends HostError {
  static override readonly hint = "create tasks with `warden create` or `warden run`";
  readonly code: string = "NOT_A_HOST_TASK";
  readonly exitClass = "usage";
}

export function noHostSettings(id: string, why: string): string {
  return `task ${id} has no settings warden can run: ${cleanLine(why)}`;
}

/** An --env name that is not a variable name, or that warden itself sets. */
export class BadEnvNameError extends HostError {
  static override readonly hint =
    "pass the name of a variable of your own environment, such as --env NPM_TOKEN";
  readonly code: string = "BAD_ENV_NAME";
  readonly exitClass = "usage";
}

/** A variable named with --env is not set in the environment of the process that runs the task. */
export class MissingEnvError extends HostError {
  readonly code: string = "MISSING_ENV";
  readonly exitClass = "operational";
}

/** The runner (dist/guest/warden-guest.cjs) is not there: warden was not built. */
export class RunnerMissingError extends HostError {
  static override readonly hint = "build warden first: `npm run build`";
  readonly code: string = "RUNNER_MISSING";
  readonly exitClass = "operational";
}

export function runnerMissing(path: string): string {
  return `the sandbox runner ${cleanLine(path)} is missing`;
}

/** fetch or diff on a task that has no verified changes to give. */
export class NoChangesError extends HostError {
  static override readonly hint = "see what happened with `warden show` and `warden logs`";
  readonly code: string = "NO_CHANGES";
  readonly exitClass = "operational";
}

/** fetch or diff on a task that has not finished yet. */
export class TaskNotFinishedError extends HostError {
  static override readonly hint = "wait for it with `warden wait`";
  readonly code: string = "TASK_NOT_FINISHED";
  readonly exitClass = "operational";
}

/** A label (`worker --label`, `run --require`) that is not NAME=VALUE with a label's name and value. */
export class BadLabelError extends HostError {
  static override readonly hint =
    "write each label as NAME=VALUE: letters, digits, . _ - in the name, at most 256 bytes of value";
  readonly code: string = "BAD_LABEL";
  readonly exitClass = "usage";
}

/** An option of `create` or `run` that is not a usable value. */
export class BadTaskOptionError extends HostError {
  readonly code: string = "BAD_OPTION";
  readonly exitClass = "usage";
}

/** A repository or start commit that a task cannot be made from. */
export class BadRepoError extends HostError {
  readonly code: string = "BAD_REPO";
  readonly exitClass = "usage";
}

/**
 * A task's changes whose objects git's strict check refuses (a path into .git, a .gitmodules
 * that runs a command, a malformed commit) or whose pack git cannot read: none of it is taken.
 */
export class BadObjectsError extends HostError {
  static override readonly hint =
    "nothing of them reached your repository; they could harm a checkout, so look at what the agent did with `warden logs` before you run it again";
  readonly code: string = "BAD_OBJECTS";
  readonly exitClass = "operational";
}

export function failsObjectCheck(why: string): string {
  return `the task's changes fail git's strict object check: ${cleanLine(why)}`;
}

/** fetch into a branch that exists, without --force. */
export class BranchExistsError extends HostError {
  static override readonly hint = "pass --force to overwrite it, or --branch NAME for another name";
  readonly code: string = "BRANCH_EXISTS";
  readonly exitClass = "operational";
}

export class BadBranchNameError extends HostError {
  static override readonly hint = "use a name git accepts, such as warden/my-task";
  readonly code: string = "BAD_BRANCH_NAME";
  readonly exitClass = "usage";
}

export function notABranchName(branch: string): string {
  return `${cleanLine(branch)} is not a valid branch name`;
}

/** The agent's program is not on this machine (or not where the task says). */
export class AgentMissingError extends HostError {
  readonly code: string = "AGENT_MISSING";
  readonly exitClass = "operational";
}

/** The hint of a missing program: how to install the agent's, or how to name another. */
export function installHint(agent: AgentName, program: string): string {
  return `install ${AGENT_PROFILES[agent].install ?? program}, or name its program with --agent-program; \`warden doctor\` shows what it finds`;
}

/**
 * The agent's program cannot run in a sandbox: it lives where no sandbox may look (the user's
 * home), or it is a launcher whose real program is not installed beside it.
 */
export class AgentUnusableError extends HostError {
  static override readonly hint =
    "install the agent again (for example with `npm install -g`), or pass --agent-program with the path of a working copy";
  readonly code: string = "AGENT_UNUSABLE";
  readonly exitClass = "operational";
}

export function cannotShowProgram(path: string, why: string): string {
  return `the agent's program ${cleanLine(path)} cannot be shown to the sandbox: ${why}`;
}

/** An agent that talks to an API, and no key for it on the host for the relay to add. */
export class NoApiKeyError extends HostError {
  readonly code: string = "NO_API_KEY";
  readonly exitClass = "operational";
}

/** approve `prompt` where nothing in the sandbox could ask the host. */
export class ApprovalUnavailableError extends HostError {
  static override readonly hint =
    "use --approve always or never with --allow-tool and --deny-tool rules, or a sandbox that carries the channel (bwrap)";
  readonly code: string = "APPROVAL_UNAVAILABLE";
  readonly exitClass = "usage";
}

/** The channel's socket path is too long for a unix socket. */
export class ChannelPathError extends HostError {
  static override readonly hint =
    "use a data directory with a shorter path (--data-dir or WARDEN_DATA_DIR)";
  readonly code: string = "CHANNEL_PATH";
  readonly exitClass = "operational";
}

/** A message for a task whose agent takes none: it would sit in the inbox, never read. */
export class MessagesNotTakenError extends HostError {
  readonly code: string = "MESSAGES_NOT_TAKEN";
  readonly exitClass = "usage";
}

/**
 * A command agent whose program is a relative path that the start commit lacks, or holds
 * without its executable bit: the agent runs in a clone of the commit, not in the working tree.
 */
export class CommandNotCommittedError extends HostError {
  readonly code: string = "COMMAND_NOT_COMMITTED";
  readonly exitClass = "usage";
}

/**
 * The directory the agent is to run in (`--repo` at a subdirectory of the repository) is not a
 * directory of the start commit: only the working tree has it.
 */
export class DirectoryNotCommittedError extends HostError {
  readonly code: string = "DIRECTORY_NOT_COMMITTED";
  readonly exitClass = "usage";
}

/** Another task kept the repository's history cache locked past HOST_LIMITS.historyLockWaitMs. */
export class HistoryCacheBusyError extends HostError {
  static override readonly hint =
    "another task is still filling the cache of this repository's history: try again later, or " +
    "look for a stuck `warden` process";
  readonly code: string = "HISTORY_CACHE_BUSY";
  readonly exitClass = "operational";
}

/** The repository's history cache could not be brought to a state a task may use. */
export class HistoryCacheError extends HostError {
  static override readonly hint =
    "remove the repository's cache under the data directory's history/ folder (`warden gc " +
    "--older-than 0s` does, when no task runs); the next task fills it again";
  readonly code: string = "HISTORY_CACHE";
  readonly exitClass = "operational";
}

/**
 * A task's spend record (spend.json) that warden did not write as it stands: what the task
 * spent before is unknown, so it is not run rather than run with its spend counted from zero.
 */
export class SpendRecordDamagedError extends HostError {
  static override readonly hint =
    "look at the task's spend.json; if you accept that its earlier spend is forgotten, remove " +
    "the file and start the task again";
  readonly code: string = "SPEND_RECORD_DAMAGED";
  readonly exitClass = "operational";
}

/** Another task held the data directory's spend ledger locked past SPEND_LIMITS.ledgerLockWaitMs. */
export class SpendLedgerBusyError extends HostError {
  static override readonly hint =
    "another warden process holds the day's file under spend/ in the data directory; look for a " +
    "stuck `warden` process";
  readonly code: string = "SPEND_LEDGER_BUSY";
  readonly exitClass = "operational";
}

/**
 * A --workspace binding (or a `workspaces` entry of the config) that cannot be bound: not
 * NAME=PATH[@REV], a bad or duplicate name, a path that is not a git repository, an unknown REV.
 */
export class BadWorkspaceError extends HostError {
  static override readonly hint =
    "bind a repository as --workspace NAME=PATH[@REV]: NAME a letter then letters, digits, _ or -; PATH a git repository";
  readonly code: string = "BAD_WORKSPACE";
  readonly exitClass = "usage";
}

/** fetch or diff --workspace NAME of a task that bound no workspace of that name. */
export class NoSuchWorkspaceError extends HostError {
  static override readonly hint = "`warden show ID` lists the task's workspaces";
  readonly code: string = "NO_SUCH_WORKSPACE";
  readonly exitClass = "usage";
}

/** continue of a task whose agent's session warden did not keep. */
export class NoSessionError extends HostError {
  static override readonly hint =
    "`warden rerun` runs the task again from its start; `warden run --from warden/<id>` starts a new one from its changes";
  readonly code: string = "NO_SESSION";
  readonly exitClass = "operational";
}

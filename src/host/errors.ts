// The host's refusals and failures: one class per kind, a stable code, a hint, and the exit
// class the CLI maps to its exit code (usage → 2, operational → 1, bound → 3), as the store does.
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

/** The runner (dist/guest/main.js) is not there: warden was not built. */
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
  constructor(message: string, hint = "check the repository with `git status` and `git fsck`") {
    super("GIT_FAILED", message, hint);
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

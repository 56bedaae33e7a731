// The bounds a test task asks for. As root, the defaults, which this machine's cgroups apply.
// An ordinary user on a test machine has no cgroup of its own, and warden then refuses the
// default bounds rather than run unbounded; its tests make the explicit ask the refusal's hint
// names (--memory 0 --max-processes 0). The disk bound needs no cgroup and stays.

const ROOT = process.getuid?.() === 0;

/** For a sandbox request or a task made through the host's API. */
export const TEST_LIMITS: { memoryBytes?: number; processes?: number } = ROOT
  ? {}
  : { memoryBytes: 0, processes: 0 };

/** For a `warden run` or `warden create` command line. */
export const TEST_BOUND_FLAGS: readonly string[] = ROOT
  ? []
  : ["--memory", "0", "--max-processes", "0"];

/** The verbs that make a task, and so take the bounds' flags. */
const TASK_VERBS = new Set(["run", "create"]);

/** `args` of a warden command line with the test bounds after a verb that makes a task. */
export function withTestBounds(args: readonly string[]): string[] {
  const [verb, ...rest] = args;
  if (verb === undefined || !TASK_VERBS.has(verb)) return [...args];
  return [verb, ...TEST_BOUND_FLAGS, ...rest];
}

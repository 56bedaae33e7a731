// Which runner the sandbox starts: warden's own built `warden-guest`, run by the Node that runs
// the host. Tests alone may put another program in its place (see TEST_GUEST_ENV).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RunnerMissingError, runnerMissing } from "./errors.js";

/**
 * The built runner, bundled into one file (scripts/bundleGuest.mjs) because every sandbox loads
 * it. This module is src/host/guestProgram.ts under tsx and dist/host/guestProgram.js once
 * built; from either, the package root is two levels up.
 */
export const GUEST_MAIN = fileURLToPath(
  new URL("../../dist/guest/warden-guest.cjs", import.meta.url),
);

/**
 * TEST ONLY. With WARDEN_TESTING=1, WARDEN_TEST_GUEST names a Node script the sandbox runs in
 * place of the runner (bound read-only into the sandbox), so that tests can stand in a hostile
 * runner. Without WARDEN_TESTING=1 the variable is ignored.
 */
export const TEST_GUEST_ENV = { testing: "WARDEN_TESTING", guest: "WARDEN_TEST_GUEST" } as const;

export interface GuestProgram {
  program: string;
  args: string[];
  /** Host paths the sandbox must bind read-only for this program to run. */
  binds: string[];
}

/** The runner to start, from the host's environment. Throws RunnerMissingError. */
export function guestProgram(env: Readonly<Record<string, string | undefined>>): GuestProgram {
  const testGuest = env[TEST_GUEST_ENV.testing] === "1" ? env[TEST_GUEST_ENV.guest] : undefined;
  if (testGuest !== undefined && testGuest !== "") {
    if (!existsSync(testGuest)) throw new RunnerMissingError(runnerMissing(testGuest));
    return { program: process.execPath, args: [testGuest], binds: [testGuest] };
  }
  if (!existsSync(GUEST_MAIN)) throw new RunnerMissingError(runnerMissing(GUEST_MAIN));
  return { program: process.execPath, args: [GUEST_MAIN], binds: [] };
}

/** Directories whose programs every sandbox already has (bwrap binds the system read-only). */
const SYSTEM_DIRS = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"];

/**
 * The agent's own program when the sandbox would not otherwise have it: an absolute path
 * outside the system directories is bound read-only at the same path. A bare name is looked up
 * on the sandbox's PATH, inside.
 */
export function agentBinds(command: readonly string[] | undefined): string[] {
  const program = command?.[0];
  if (program === undefined || !program.startsWith("/")) return [];
  if (SYSTEM_DIRS.some((dir) => program.startsWith(dir))) return [];
  return [program];
}

// The ordinary user that sandbox tests run warden as: a system user made for the purpose when
// the suite runs as root, or the suite's own user when it does not.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { lchown, lstat, readdir } from "node:fs/promises";
import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { findPackageRoot } from "../../src/sandbox/packageRoot.js";

const run = promisify(execFile);

export const TEST_USER_NAME = "warden-test";

/** Where the package's tests are run from, so that `--import tsx` resolves. */
export const PACKAGE_ROOT = findPackageRoot() ?? process.cwd();

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  /** True when the tests run as root and switch to this user for what they start. */
  switched: boolean;
}

export type TestUserOutcome = { ok: true; user: TestUser } | { ok: false; why: string };

async function lookUp(name: string): Promise<TestUser | null> {
  try {
    const { stdout } = await run("getent", ["passwd", name]);
    const [, , uid = "", gid = "", , home = ""] = stdout.trim().split(":");
    return { name, uid: Number(uid), gid: Number(gid), home, switched: true };
  } catch {
    return null;
  }
}

/** useradd lives in an sbin directory, which a test's PATH may not have. */
function findUseradd(): string | null {
  return ["/usr/sbin/useradd", "/sbin/useradd"].find((p) => existsSync(p)) ?? null;
}

/**
 * The ordinary user, made if it is missing; or why there is none. The package must be readable
 * by that user, since it runs warden from there.
 */
export async function ordinaryUser(): Promise<TestUserOutcome> {
  if (process.getuid?.() !== 0) {
    const self = userInfo();
    const user = { name: self.username, uid: self.uid, gid: self.gid, home: homedir() };
    return { ok: true, user: { ...user, switched: false } };
  }
  let user = await lookUp(TEST_USER_NAME);
  if (user === null) {
    const useradd = findUseradd();
    if (useradd === null) {
      return { ok: false, why: "useradd is missing (apt-get install passwd), so no test user" };
    }
    const args = ["--system", "--create-home", "--shell", "/bin/sh", TEST_USER_NAME];
    // A second test file making the same user at once is not an error: the lookup decides.
    await run(useradd, args).catch(() => undefined);
    user = await lookUp(TEST_USER_NAME);
    if (user === null) return { ok: false, why: `useradd could not make ${TEST_USER_NAME}` };
  }
  const probe = join(PACKAGE_ROOT, "node_modules", "tsx", "package.json");
  const check = ["-e", "require('fs').accessSync(process.argv[1], require('fs').constants.R_OK)"];
  const readable = await run(process.execPath, [...check, probe], {
    uid: user.uid,
    gid: user.gid,
  }).then(
    () => true,
    () => false,
  );
  if (!readable) {
    return {
      ok: false,
      why: `${TEST_USER_NAME} cannot read ${PACKAGE_ROOT}: a directory above it is private`,
    };
  }
  return { ok: true, user };
}

/** Gives `path` and everything under it to the user, when the tests run as someone else. */
export async function giveTo(path: string, user: TestUser): Promise<void> {
  if (!user.switched) return;
  await lchown(path, user.uid, user.gid);
  if (!(await lstat(path)).isDirectory()) return;
  for (const name of await readdir(path)) await giveTo(join(path, name), user);
}

/** The environment of a program the user runs: its own home, nothing of the test's. */
export function userEnv(user: TestUser): NodeJS.ProcessEnv {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    LANG: "C.UTF-8",
    ...(process.env.CI === undefined ? {} : { CI: process.env.CI }),
  };
}

/** Starts `node <args>` from the package root as the user, with every stream piped. */
export function spawnAsUser(user: TestUser, args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, args, {
    cwd: PACKAGE_ROOT,
    env: userEnv(user),
    stdio: "pipe",
    ...(user.switched ? { uid: user.uid, gid: user.gid } : {}),
  });
}

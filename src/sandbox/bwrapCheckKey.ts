// What a passed check of bubblewrap depends on, as one text: a pass kept by one process is taken
// by another only while this text is the same. Each part is something an administrator's act
// changes (a reboot, a new bubblewrap, a sysctl of the user namespaces), never a task.
import { readFile, stat } from "node:fs/promises";
import { release } from "node:os";
import type { BwrapHost } from "./bwrapHost.js";

/** The sysctls that allow or refuse the user namespaces bubblewrap makes, where a kernel has them. */
const USERNS_SYSCTLS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/** This boot of the kernel: a pass never outlives a reboot. */
const BOOT_ID = "/proc/sys/kernel/random/boot_id";

/** A program as the key sees it: which file it is and what it may do (its mode, its owner). */
async function programFacts(path: string): Promise<unknown[]> {
  const s = await stat(path);
  return [path, s.dev, s.ino, s.size, s.mtimeMs, s.mode, s.uid];
}

/** The key of `host`'s check; undefined where something it names cannot be read. */
export async function bwrapCheckKey(host: BwrapHost): Promise<string | undefined> {
  if (host.bwrap === null) return undefined;
  try {
    const programs = [host.bwrap, host.setpriv, host.timeout].filter(
      (path): path is string => path !== null,
    );
    const sysctls = await Promise.all(
      USERNS_SYSCTLS.map((path) => readFile(path, "utf8").catch(() => "absent")),
    );
    return JSON.stringify({
      boot: (await readFile(BOOT_ID, "utf8")).trim(),
      kernel: release(),
      programs: await Promise.all(programs.map(programFacts)),
      sysctls: sysctls.map((text) => text.trim()),
      euid: process.geteuid?.() ?? null,
      identity: host.identity,
      arch: host.arch,
    });
  } catch {
    return undefined;
  }
}

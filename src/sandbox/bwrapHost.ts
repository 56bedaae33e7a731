// The facts of this machine that a bwrap plan is made from, read once so the plan stays pure.
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { findPackageRoot, packageFiles } from "./packageRoot.js";
import { seccompArch } from "./seccompFilter.js";
import { probeSandboxIdentity, type SandboxIdentity } from "./sandboxIdentity.js";
import type { SeccompArch } from "./syscallTable.js";

/** A top-level system directory: bound read-only, or recreated as the host's symlink. */
export type SystemDir =
  { kind: "dir"; path: string } | { kind: "symlink"; path: string; target: string };

export interface BwrapHost {
  /** bwrap's absolute path, or null when it is not installed. */
  bwrap: string | null;
  /** The home of the user warden runs as; never bound. */
  home: string;
  systemDirs: SystemDir[];
  /** Host /etc entries that exist and are safe to show (loader cache, CA certificates). */
  etcEntries: string[];
  /** The directory of the Node runtime that runs the runner, symlinks resolved. */
  nodeDir: string;
  /** warden's own files to bind read-only (see packageFiles). */
  packageFiles: string[];
  /** Which host user the sandbox runs as. */
  identity: SandboxIdentity;
  /** setpriv's absolute path (util-linux): how a root warden drops to the sandbox's uid. */
  setpriv: string | null;
  /** coreutils' timeout, the waiter a root warden's sandboxes start through. */
  timeout: string | null;
  /** The architecture the seccomp filter is built for; null where warden has no filter. */
  arch: SeccompArch | null;
}

/** The top-level directories programs load from. Each is bound or symlinked as on the host. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The host /etc entries a sandbox sees, read-only. Deliberately short: no passwd, shadow, hosts,
 * resolv.conf or gitconfig of the host's (the plan writes its own passwd, group, hosts and
 * nsswitch.conf), and only the certificates of /etc/ssl, never /etc/ssl/private.
 */
const ETC_ENTRIES = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/localtime",
  "/etc/services",
  "/etc/protocols",
  "/etc/ssl/certs",
  "/etc/ssl/openssl.cnf",
  "/etc/pki/tls/certs",
  "/etc/pki/ca-trust/extracted",
  "/etc/ca-certificates/extracted",
];

/** Where bwrap is looked for beyond PATH, since warden may run with a minimal PATH. */
const FALLBACK_BIN_DIRS = ["/usr/bin", "/usr/local/bin", "/bin"];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `name` on PATH (then the usual bin directories), or null. */
export function findProgram(name: string, path = process.env.PATH ?? ""): string | null {
  const dirs = [...path.split(delimiter).filter((d) => d.startsWith("/")), ...FALLBACK_BIN_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function systemDir(path: string): SystemDir | null {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { kind: "symlink", path, target: readlinkSync(path) };
    if (stat.isDirectory()) return { kind: "dir", path };
  } catch {
    // The host has no such directory (no /lib32 on most machines).
  }
  return null;
}

export interface BwrapHostOptions {
  /** bwrap to use; by default the one on PATH. */
  bwrap?: string;
  /** warden's package root; by default the one this module is in. */
  packageRoot?: string;
  /** The Node runtime the runner runs on; by default this process's. */
  nodePath?: string;
  /** The sandbox's host user; by default from this process's uid and WARDEN_SANDBOX_UID. */
  identity?: SandboxIdentity;
}

/** Reads the host's layout: a few lstat calls, done once per backend. */
export function probeBwrapHost(options: BwrapHostOptions = {}): BwrapHost {
  const root = options.packageRoot ?? findPackageRoot();
  return {
    bwrap: options.bwrap ?? findProgram("bwrap"),
    home: homedir(),
    systemDirs: SYSTEM_DIRS.map(systemDir).filter((d): d is SystemDir => d !== null),
    etcEntries: ETC_ENTRIES.filter((p) => existsSync(p)),
    nodeDir: dirname(realpathSync(options.nodePath ?? process.execPath)),
    packageFiles: root === null ? [] : packageFiles(root),
    identity: options.identity ?? probeSandboxIdentity(),
    setpriv: findProgram("setpriv"),
    timeout: findProgram("timeout"),
    arch: seccompArch(),
  };
}

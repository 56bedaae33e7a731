// Which program runs an agent: the sandbox has no agent of its own, so the host finds the one on
// this machine and binds it read-only into the sandbox at the same path. In order:
//   1. the path the task names (`--agent-program`), as given;
//   2. the agent's program on the host's PATH (`claude`);
//   3. warden's own node_modules/.bin (the pinned dev dependency), for development.
// Symlinks are resolved, so the sandbox gets the real file (npm's .bin entries are links), and a
// program that is a script brings its whole package with it. Codex's npm launcher is replaced by
// the native program it would start (see codexProgram.ts).
import { execFile } from "node:child_process";
import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { AGENT_PROFILES, cleanLine, type AgentName } from "../protocol/index.js";
import { CODEX_PLATFORMS, codexLayout, findCodexNative, isCodexLauncher } from "./codexProgram.js";
import { AgentUnusableError, cannotShowProgram } from "./errors.js";
import { isExecutableFile } from "./executableFile.js";

/** warden's own node_modules/.bin: src/host under tsx, dist/host when built. */
export const DEV_AGENT_BIN = fileURLToPath(new URL("../../node_modules/.bin/", import.meta.url));

/** Directories every sandbox already has read-only (bwrap binds the system directories). */
const SYSTEM_DIRS = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"];

/** `--version` must answer within this: it prints a line, it does not start a session. */
const VERSION_TIMEOUT_MS = 15_000;

export type ProgramSource = "settings" | "path" | "package";

export interface AgentProgram {
  readonly agent: AgentName;
  /** The real file, symlinks resolved: the path inside the sandbox too. */
  readonly path: string;
  /** Where it was found, before symlinks were resolved. */
  readonly found: string;
  readonly source: ProgramSource;
  /** Host paths to bind read-only (at the same path) so that it runs inside. */
  readonly binds: readonly string[];
}

function onPath(program: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "" || !dir.startsWith("/")) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Whether a file starts with `#!`: a script, which needs more than itself to run. */
function isScript(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString("latin1") === "#!";
  } finally {
    closeSync(fd);
  }
}

/** The nearest directory at or above `dir` with a package.json: a script's package. */
function packageOf(dir: string): string | undefined {
  for (let at = dir; at !== "/"; at = dirname(at)) {
    try {
      if (statSync(join(at, "package.json")).isFile()) return at;
    } catch {
      // Not here; look further up.
    }
  }
  return undefined;
}

function inSystemDirs(path: string): boolean {
  return SYSTEM_DIRS.some((dir) => path.startsWith(dir));
}

/** What the sandbox must bind for `path` (a real file) to run. */
export function programBinds(path: string): string[] {
  if (inSystemDirs(path)) return [];
  if (!isScript(path)) return [path];
  return [packageOf(dirname(path)) ?? path];
}

/**
 * Codex's program as the sandbox runs it: the native binary for the npm launcher, bound with
 * its layout when it has one. Throws AgentUnusableError for a launcher without its binary.
 */
function codexProgram(path: string, arch: string): { path: string; binds: string[] } {
  let native = path;
  if (isCodexLauncher(path)) {
    const found = findCodexNative(path, arch);
    if (found === undefined) {
      const platform = CODEX_PLATFORMS[arch];
      const why =
        platform === undefined
          ? `it is Codex's npm launcher, and Codex has no Linux program for ${cleanLine(arch)}`
          : `it is Codex's npm launcher, and the program it starts (${platform.package}) is not installed beside it`;
      throw new AgentUnusableError(cannotShowProgram(path, why), {
        hint: "reinstall Codex with its optional dependencies (`npm install -g @openai/codex`), or pass the native codex binary with --agent-program",
      });
    }
    native = found;
  }
  const layout = codexLayout(native);
  if (layout === undefined) return { path: native, binds: programBinds(native) };
  return { path: native, binds: inSystemDirs(layout) ? [] : [layout] };
}

/**
 * The agent's program on this machine, or undefined when there is none. Reads the disk.
 * Throws AgentUnusableError for a Codex launcher whose native program is missing.
 */
export function findAgentProgram(
  agent: AgentName,
  configured: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  arch: string = process.arch,
): AgentProgram | undefined {
  const name = AGENT_PROFILES[agent].program;
  if (name === undefined) return undefined;
  const candidates: [string | undefined, ProgramSource][] =
    configured !== undefined
      ? [[configured, "settings"]]
      : [
          [onPath(name, env.PATH), "path"],
          [join(DEV_AGENT_BIN, name), "package"],
        ];
  for (const [found, source] of candidates) {
    if (found === undefined || !isExecutableFile(found)) continue;
    const real = realpathSync(found);
    if (agent === "codex") return { agent, found, source, ...codexProgram(real, arch) };
    return { agent, path: real, found, source, binds: programBinds(real) };
  }
  return undefined;
}

/** The program's own `--version` line, cleaned; undefined when it does not answer. */
export async function programVersion(path: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)(path, ["--version"], {
      timeout: VERSION_TIMEOUT_MS,
      // Claude Code and Gemini CLI each check for updates or start a second copy of
      // themselves unless told not to; `--version` needs neither.
      env: { ...process.env, DISABLE_AUTOUPDATER: "1", GEMINI_CLI_NO_RELAUNCH: "true" },
    });
    const first = stdout.trim().split("\n")[0] ?? "";
    return first === "" ? undefined : cleanLine(first);
  } catch {
    return undefined;
  }
}

// A network namespace for a test, made as root with `ip netns`: a veth pair whose host end and
// namespace end have the two addresses of a private /30 of their own, a process run inside with
// nsenter (argv, never a shell string), the link cut (its host end set down) and
// restored, and everything removed when done, namespaces left by a test that died included.
import {
  execFile,
  spawn,
  spawnSync,
  type ChildProcessWithoutNullStreams,
} from "node:child_process";
import { randomInt } from "node:crypto";
import { promisify } from "node:util";
import { skipWhen, type SkipReason } from "./skipWhen.js";

const run = promisify(execFile);

/** Every namespace a test makes is named so; the pid says which test process made it. */
const NAME_PREFIX = "wdn-";
/** Tests' /30s are taken from 10.201.0.0/16: 16384 of them, picked at random. */
const SUBNET_FIRST_OCTETS = "10.201";
const SUBNETS = 16_384;
/** How many random /30s are tried before making a namespace fails. */
const PICK_ATTEMPTS = 8;

/** The skip option for tests that need network namespaces: root and `ip` are needed. */
export function netnsMissing(): SkipReason {
  if (process.getuid?.() !== 0) return skipWhen("network namespaces need root");
  const probe = spawnSync("ip", ["netns", "list"], { encoding: "utf8" });
  return skipWhen(probe.error === undefined ? false : "ip (iproute2) is not installed");
}

async function ip(...args: string[]): Promise<void> {
  await run("ip", args);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the namespaces of test processes that died before removing their own. */
async function removeOrphans(): Promise<void> {
  const { stdout } = await run("ip", ["netns", "list"]);
  for (const line of stdout.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const pid = /^wdn-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid)))
      await ip("netns", "del", name).catch(() => undefined);
  }
}

export class NetNamespace {
  readonly name: string;
  /** The address of the host's end, where a server for the namespace's processes listens. */
  readonly hostAddress: string;
  /** The address of the namespace's end. */
  readonly nsAddress: string;
  readonly #hostLink: string;
  readonly #children: ChildProcessWithoutNullStreams[] = [];

  private constructor(name: string, hostLink: string, hostAddress: string, nsAddress: string) {
    this.name = name;
    this.#hostLink = hostLink;
    this.hostAddress = hostAddress;
    this.nsAddress = nsAddress;
  }

  static async create(): Promise<NetNamespace> {
    await removeOrphans();
    for (let attempt = 0; ; attempt++) {
      const tag = randomInt(SUBNETS);
      const base = tag * 4;
      const subnet = `${SUBNET_FIRST_OCTETS}.${Math.floor(base / 256)}`;
      const host = `${subnet}.${(base % 256) + 1}`;
      const inside = `${subnet}.${(base % 256) + 2}`;
      const name = `${NAME_PREFIX}${process.pid}-${tag}`;
      // Interface names are at most 15 characters.
      const made = new NetNamespace(name, `wdh${tag}`, host, inside);
      try {
        await made.#build(`wdi${tag}`);
        return made;
      } catch (error) {
        await made.remove();
        if (attempt + 1 >= PICK_ATTEMPTS) throw error;
      }
    }
  }

  async #build(nsLink: string): Promise<void> {
    await ip("netns", "add", this.name);
    await ip("link", "add", this.#hostLink, "type", "veth", "peer", "name", nsLink);
    await ip("link", "set", nsLink, "netns", this.name);
    await ip("addr", "add", `${this.hostAddress}/30`, "dev", this.#hostLink);
    await ip("link", "set", this.#hostLink, "up");
    const inside = (...args: string[]) => ip("netns", "exec", this.name, "ip", ...args);
    await inside("addr", "add", `${this.nsAddress}/30`, "dev", nsLink);
    await inside("link", "set", nsLink, "up");
    await inside("link", "set", "lo", "up");
  }

  /**
   * Runs `argv` inside the namespace (in `options.cwd`, with `options.env` as its whole
   * environment when given); it is killed when the namespace is removed.
   */
  spawn(
    argv: readonly string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ): ChildProcessWithoutNullStreams {
    // nsenter enters the network namespace alone; `ip netns exec` would also mount a sysfs of
    // the namespace's own over /sys, hiding the cgroup file system a sandbox's bounds need.
    const child = spawn("nsenter", [`--net=/run/netns/${this.name}`, "--", ...argv], {
      stdio: ["pipe", "pipe", "pipe"],
      ...options,
    });
    this.#children.push(child);
    return child;
  }

  /** Cuts the link: nothing passes between the namespace and the host until restore(). */
  async cut(): Promise<void> {
    await ip("link", "set", this.#hostLink, "down");
  }

  async restore(): Promise<void> {
    await ip("link", "set", this.#hostLink, "up");
  }

  /** Kills what runs inside and removes the namespace and both ends of the link. */
  async remove(): Promise<void> {
    for (const child of this.#children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await ip("netns", "del", this.name).catch(() => undefined);
    await ip("link", "del", this.#hostLink).catch(() => undefined);
  }
}

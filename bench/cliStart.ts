// How long a whole `warden` process takes for the verbs people run most (`ls`, `show`, `send`)
// over a data dir of a few tasks, against `node -e 0` timed in the same rounds: the start of
// Node itself is the floor no CLI goes under, so the ratio is what warden adds to it. Beside the
// wall times (the figure the goal is stated in) it prints the CPU time each process used, read
// from the kernel's count of this process's children: on a busy machine a process that waits
// for the CPU more often stretches in wall time more than it does in CPU time.
// The tasks are made through the store, not by `warden run`: their settings are not the host's,
// so show and send stop at the host's first check of them, where a task `warden run` made also
// has its agent's settings checked in full. Runs the built CLI (dist/cli/warden.cjs): run `npm run
// build` first.
// Run: node --import tsx bench/cliStart.ts [--quick] [--cli=PATH]
// (--cli times another build of the command, to compare two builds on one machine.)
import "./support/withoutExtraCaCerts.js";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./support/median.js";
import { populate, quick } from "./support/storeSetup.js";

const CLI_MAIN =
  process.argv.find((arg) => arg.startsWith("--cli="))?.slice("--cli=".length) ??
  fileURLToPath(new URL("../dist/cli/warden.cjs", import.meta.url));
const TASKS = 5;
const ROUNDS = quick ? 5 : 15;

/** The kernel's clock ticks a second, the unit of the CPU times in /proc. */
const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"]).stdout.toString().trim());

/** The CPU time (user and system) of this process's ended children so far, in ms (Linux). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // The fields after the command's name, which is in parentheses and may hold spaces: cutime and
  // cstime are the 16th and 17th fields of the line, so the 14th and 15th of these.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** One run's wall time and CPU time, in ms. */
interface Took {
  wall: number;
  cpu: number;
}

/** Runs `argv` under node to its end and returns what it took; throws if it failed. */
function timeProcess(argv: readonly string[], env: NodeJS.ProcessEnv): Took {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const child = spawnSync(process.execPath, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
  const wall = performance.now() - started;
  if (child.status !== 0) {
    throw new Error(`node ${argv.join(" ")} exited ${child.status}: ${child.stderr.toString()}`);
  }
  return { wall, cpu: childrenCpuMs() - cpuBefore };
}

if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first`);
const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-cli-"));
try {
  const ids = populate(dataDir, TASKS, ["created", "finished"]);
  const created = ids[0] ?? "";
  const finished = ids[1] ?? "";
  const env = { ...process.env, WARDEN_DATA_DIR: dataDir, NO_COLOR: "1" };
  const cases: [string, string[]][] = [
    ["node -e 0", ["-e", "0"]],
    ["warden --version", [CLI_MAIN, "--version"]],
    ["warden ls", [CLI_MAIN, "ls"]],
    ["warden show ID", [CLI_MAIN, "show", finished]],
    ["warden send ID MESSAGE", [CLI_MAIN, "send", created, "keep going"]],
  ];
  // One untimed run of each puts the files in the page cache; then the cases take turns in
  // every round, so load from other processes falls on all of them alike.
  for (const [, argv] of cases) timeProcess(argv, env);
  const times = cases.map((): Took[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    cases.forEach(([, argv], i) => times[i]?.push(timeProcess(argv, env)));
  }
  // The kernel counts CPU time in ticks (10 ms, commonly), too coarse for one run's median: the
  // CPU figure is the mean over the rounds.
  const walls = times.map((t) => median(t.map((took) => took.wall)));
  const cpus = times.map((t) => t.reduce((sum, took) => sum + took.cpu, 0) / t.length);
  const baseWall = walls[0] ?? Number.NaN;
  const baseCpu = cpus[0] ?? Number.NaN;
  console.log(`whole processes over ${TASKS} tasks, ${ROUNDS} rounds (wall: median; CPU: mean):`);
  cases.forEach(([name], i) => {
    const wall = walls[i] ?? Number.NaN;
    const cpu = cpus[i] ?? Number.NaN;
    console.log(
      `  ${name.padEnd(24)} wall ${wall.toFixed(0).padStart(5)} ms  ratio ${(wall / baseWall).toFixed(2)}x` +
        `   CPU ${cpu.toFixed(0).padStart(5)} ms  ratio ${(cpu / baseCpu).toFixed(2)}x`,
    );
  });
} finally {
  await rm(dataDir, { recursive: true, force: true });
}

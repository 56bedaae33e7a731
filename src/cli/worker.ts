// `warden worker`: runs the tasks of a fleet's queue on this machine (src/fleet/worker/).
import { Option, type Command } from "commander";
import {
  FLEET_TIMING,
  openWorkerDir,
  parseLabels,
  serversText,
  Worker,
  WORKER_LIMITS,
  type WorkerNews,
} from "../fleet/index.js";
import { cleanLine } from "../protocol/index.js";
import { UsageError } from "./cliErrors.js";
import { collect, openFleet, openMachineTasks, type GlobalOptions } from "./context.js";
import { storeAddress } from "./storeAddress.js";
import { parseCount, parseMs } from "./parseValues.js";
import { standardOut, standardError } from "./standardStreams.js";

/** The name a worker's connection carries, as the server's monitoring shows it. */
const WORKER_NAME = "warden worker";

interface WorkerFlags {
  capacity: string;
  label?: string[];
  grace: string;
  json?: boolean;
  leaseTtl?: string;
  heartbeat?: string;
  reapEvery?: string;
  maxBaseBytes?: string;
}

/** A hidden option's value parsed, or the constant it stands in for when it was not given. */
function givenOr(
  value: string | undefined,
  option: string,
  parse: (value: string, option: string) => number,
  fallback: number,
): number {
  return value === undefined ? fallback : parse(value, option);
}

/** Pure: one line of what the worker did, for a person. */
export function newsText(news: WorkerNews): string {
  switch (news.event) {
    case "took":
      return `took ${news.id} (attempt ${news.attempt})`;
    case "dropped":
      return `dropped ${news.id} from the queue: ${cleanLine(news.why)}`;
    case "reaped":
      return `freed ${news.id}, whose worker stopped beating, and queued it again`;
    case "warning":
      return `warning${news.id === undefined ? "" : ` (${news.id})`}: ${cleanLine(news.text)}`;
    case "ended": {
      const { end } = news;
      if (end.kind === "finished") return `finished ${news.id} ${end.state}`;
      if (end.kind === "handed_back") return `handed back ${news.id} (${end.why})`;
      return `lost the lease of ${news.id}; its run was stopped: ${cleanLine(end.error)}`;
    }
  }
}

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .summary("run a fleet's queued tasks on this machine")
    .description(
      "Pull tasks from the fleet's work queue at --store while there is a free slot (--capacity), " +
        "run each with this machine's sandbox, network gate and checks, stream its events to the " +
        "fleet, and upload its results before its end is recorded. A task that requires labels " +
        "(`--require K=V`) this worker lacks (--label) is left to another worker. Every worker " +
        "also frees the tasks of workers that stopped beating and queues them again. On SIGTERM " +
        "or SIGINT it takes nothing more, lets the tasks it holds run on for --grace, hands back " +
        "the rest (another worker runs them again from their base) and exits 0. Its copies of the " +
        "tasks live under <data dir>/worker and are removed as each task ends.",
    )
    .option("--capacity <n>", "how many tasks it runs at once", "1")
    .option("--label <name=value>", "a label this worker has (repeatable)", collect)
    .option(
      "--grace <duration>",
      "after SIGTERM, how long held tasks may run on to their end",
      "0s",
    )
    .option("--json", "print what it does as JSON lines on stdout")
    .addOption(new Option("--lease-ttl <duration>").hideHelp())
    .addOption(new Option("--heartbeat <duration>").hideHelp())
    .addOption(new Option("--reap-every <duration>").hideHelp())
    .addOption(new Option("--max-base-bytes <n>").hideHelp())
    .action(async (flags: WorkerFlags, cmd: Command) => {
      const address = await storeAddress(cmd.optsWithGlobals<GlobalOptions>().store, process.env);
      if (address.kind === "local") {
        throw new UsageError("warden worker runs a fleet's tasks, and no fleet's store is named", {
          hint: "give --store nats://HOST:PORT, or set WARDEN_STORE or store: in your config",
        });
      }
      const capacity = parseCount(flags.capacity, "--capacity");
      if (capacity < 1) {
        throw new UsageError("--capacity 0 would run nothing", {
          hint: "give --capacity 1 or more",
        });
      }
      const labels = parseLabels(flags.label ?? []);
      const graceMs = parseMs(flags.grace, "--grace");
      const leaseTtlMs = givenOr(flags.leaseTtl, "--lease-ttl", parseMs, FLEET_TIMING.leaseTtlMs);
      const heartbeatMs = givenOr(
        flags.heartbeat,
        "--heartbeat",
        parseMs,
        FLEET_TIMING.heartbeatMs,
      );
      const reapEveryMs = givenOr(
        flags.reapEvery,
        "--reap-every",
        parseMs,
        WORKER_LIMITS.reapEveryMs,
      );
      const maxBaseBytes = givenOr(
        flags.maxBaseBytes,
        "--max-base-bytes",
        parseCount,
        WORKER_LIMITS.baseBundleBytes,
      );
      const dir = await openWorkerDir((await openMachineTasks(cmd)).dataDir);
      const fleet = await openFleet(address, WORKER_NAME, { env: {}, leaseTtlMs, heartbeatMs });
      const tell = (news: WorkerNews): void => {
        if (flags.json === true) standardOut.write(`${JSON.stringify(news)}\n`);
        else standardError.write(`warden worker: ${newsText(news)}\n`);
      };
      const worker = new Worker({
        fleet,
        local: dir.local,
        mirrorsDir: dir.mirrorsDir,
        capacity,
        labels,
        maxBaseBytes,
        graceMs,
        reapEveryMs,
        env: process.env,
        tell,
      });
      const stop = (): void => {
        worker.stop();
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
      standardError.write(
        `warden worker: pulling from ${serversText(address.servers)}, capacity ${capacity}` +
          `${
            Object.keys(labels).length === 0
              ? ""
              : `, labels ${Object.entries(labels)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(" ")}`
          }\n`,
      );
      try {
        await worker.run();
      } finally {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        await fleet.close();
      }
      standardError.write("warden worker: stopped\n");
    });
}

// A tunnel through the sandbox's gate (forwardPorts in its own process, a unix socket, the
// CONNECT proxy) against a plain TCP connection to the same local server: the time to open a
// connection (CONNECT answered vs TCP connected), and the throughput and CPU time of a bulk
// transfer, direct and tunnelled in turn.
// Run: node --import tsx bench/egressProxy.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startProxy } from "../src/egress/index.js";
import { startForwarder } from "./support/forwarder.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const OPENS = quick ? 200 : 1_000;
const BULK_BYTES = (quick ? 32 : 128) * MiB;
const BULK_RUNS = quick ? 5 : 15;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** The target: on "send" it streams BULK_BYTES and ends; otherwise it only accepts. */
const target = createServer((socket) => {
  socket.on("error", () => undefined);
  socket.once("data", () => {
    let sent = 0;
    const pump = (): void => {
      while (sent < BULK_BYTES) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) {
          socket.once("drain", pump);
          return;
        }
      }
      socket.end();
    };
    pump();
  });
});

/** Opens a connection to the target, directly or through the proxy; resolves once usable. */
function open(port: number, via: number | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: via ?? port });
    socket.once("error", reject);
    if (via === undefined) {
      socket.once("connect", () => {
        resolve(socket);
      });
      return;
    }
    socket.once("connect", () => {
      socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
    });
    let head = "";
    const onData = (chunk: Buffer): void => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head));
      else resolve(socket);
    };
    socket.on("data", onData);
  });
}

/** Median time to open a connection, directly or through the proxy. */
async function measureOpen(port: number, via: number | undefined): Promise<number> {
  const opens: number[] = [];
  for (let i = 0; i < OPENS; i++) {
    const started = performance.now();
    const socket = await open(port, via);
    opens.push(performance.now() - started);
    socket.destroy();
  }
  return median(opens);
}

/** CPU seconds a process has used, from /proc: the forwarder's is not this process's. */
function cpuSeconds(pid: number | "self"): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticksPerSecond = 100;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** CPU seconds of the processes a transfer runs in, together. */
function cpuOf(pids: readonly (number | "self")[]): number {
  let sum = 0;
  for (const pid of pids) sum += cpuSeconds(pid);
  return sum;
}

/** MiB/s of one bulk transfer, checked to arrive whole, and the CPU seconds it took. */
async function bulkRate(
  port: number,
  via: number | undefined,
): Promise<{ rate: number; cpu: number }> {
  const socket = await open(port, via);
  const cpuBefore = cpuOf(pids);
  const started = performance.now();
  let bytes = 0;
  socket.on("data", (chunk: Buffer) => (bytes += chunk.length));
  socket.write("send");
  await once(socket, "end");
  if (bytes !== BULK_BYTES) throw new Error(`received ${bytes} bytes`);
  const rate = BULK_BYTES / MiB / ((performance.now() - started) / 1000);
  const cpu = cpuOf(pids) - cpuBefore;
  socket.destroy();
  return { rate, cpu };
}

/**
 * Bulk transfers in pairs, direct then tunnel, so both of a pair see the same load from whatever
 * else runs on the machine; the ratio is the median of the pairs' ratios.
 */
async function measureBulk(
  port: number,
  via: number,
): Promise<{
  direct: number;
  tunnel: number;
  ratio: number;
  directCpu: number;
  tunnelCpu: number;
}> {
  const direct: number[] = [];
  const tunnel: number[] = [];
  const ratios: number[] = [];
  const directCpu: number[] = [];
  const tunnelCpu: number[] = [];
  for (let i = 0; i < BULK_RUNS; i++) {
    const d = await bulkRate(port, undefined);
    const t = await bulkRate(port, via);
    direct.push(d.rate);
    tunnel.push(t.rate);
    ratios.push(t.rate / d.rate);
    directCpu.push(d.cpu);
    tunnelCpu.push(t.cpu);
  }
  return {
    direct: median(direct),
    tunnel: median(tunnel),
    ratio: median(ratios),
    directCpu: median(directCpu),
    tunnelCpu: median(tunnelCpu),
  };
}

const dir = await mkdtemp(join(tmpdir(), "warden-bench-"));
await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
const address = target.address();
const targetPort = typeof address === "object" && address !== null ? address.port : 0;
const socketPath = join(dir, "proxy.sock");
const proxy = await startProxy({
  socketPath,
  allow: [`127.0.0.1:${targetPort}`],
  log: join(dir, "proxy.log"),
});
// The forwarder runs in a process of its own, as the runner does inside the sandbox.
const { port: forwardPort, process: forwarder } = await startForwarder(socketPath);
const pids = ["self", forwarder.pid ?? 0] as const;

try {
  const directOpen = await measureOpen(targetPort, undefined);
  const tunnelOpen = await measureOpen(targetPort, forwardPort);
  const bulk = await measureBulk(targetPort, forwardPort);
  console.log(
    `egress proxy: forwardPorts + unix socket + CONNECT proxy vs direct TCP${quick ? " (quick)" : ""}`,
  );
  console.log(
    `  open a connection, median of ${OPENS}: direct ${(directOpen * 1000).toFixed(0)} µs, ` +
      `tunnel ${(tunnelOpen * 1000).toFixed(0)} µs, added ${((tunnelOpen - directOpen) * 1000).toFixed(0)} µs, ` +
      `ratio ${(tunnelOpen / directOpen).toFixed(2)}x`,
  );
  console.log(
    `  receive ${BULK_BYTES / MiB} MiB, median of ${BULK_RUNS} pairs: direct ${bulk.direct.toFixed(0)} MiB/s, ` +
      `tunnel ${bulk.tunnel.toFixed(0)} MiB/s, ratio ${bulk.ratio.toFixed(2)}`,
  );
  // CPU time does not depend on what else the machine runs, as wall time under load does.
  console.log(
    `  CPU for it (this process and the forwarder), median: direct ${bulk.directCpu.toFixed(2)} s, ` +
      `tunnel ${bulk.tunnelCpu.toFixed(2)} s, ratio ${(bulk.directCpu / bulk.tunnelCpu).toFixed(2)}`,
  );
} finally {
  forwarder.kill();
  await proxy.close();
  await new Promise<void>((resolve) => {
    target.close(() => {
      resolve();
    });
  });
  await rm(dir, { recursive: true, force: true });
}

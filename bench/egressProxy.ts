// A tunnel through the sandbox's gate (forwardPorts in its own process, a unix socket, the
// CONNECT proxy) against a plain TCP connection to the same local server: the time to open a
// connection (CONNECT answered vs TCP connected) and the throughput of a bulk transfer.
// Run: node --import tsx bench/egressProxy.ts [--quick]
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startProxy } from "../src/egress/index.js";
import { startForwarder } from "./support/forwarder.js";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const OPENS = quick ? 200 : 1_000;
const BULK_BYTES = (quick ? 32 : 128) * MiB;
const BULK_RUNS = quick ? 3 : 7;
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

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

async function measure(
  port: number,
  via: number | undefined,
): Promise<{ openMs: number; mibs: number }> {
  const opens: number[] = [];
  for (let i = 0; i < OPENS; i++) {
    const started = performance.now();
    const socket = await open(port, via);
    opens.push(performance.now() - started);
    socket.destroy();
  }
  const rates: number[] = [];
  for (let i = 0; i < BULK_RUNS; i++) {
    const socket = await open(port, via);
    const started = performance.now();
    let bytes = 0;
    socket.on("data", (chunk: Buffer) => (bytes += chunk.length));
    socket.write("send");
    await once(socket, "end");
    if (bytes !== BULK_BYTES) throw new Error(`received ${bytes} bytes`);
    rates.push(BULK_BYTES / MiB / ((performance.now() - started) / 1000));
    socket.destroy();
  }
  return { openMs: median(opens), mibs: median(rates) };
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

try {
  const direct = await measure(targetPort, undefined);
  const gated = await measure(targetPort, forwardPort);
  console.log(
    `egress proxy: forwardPorts + unix socket + CONNECT proxy vs direct TCP${quick ? " (quick)" : ""}`,
  );
  console.log(
    `  open a connection, median of ${OPENS}: direct ${(direct.openMs * 1000).toFixed(0)} µs, ` +
      `tunnel ${(gated.openMs * 1000).toFixed(0)} µs, added ${((gated.openMs - direct.openMs) * 1000).toFixed(0)} µs, ` +
      `ratio ${(gated.openMs / direct.openMs).toFixed(2)}x`,
  );
  console.log(
    `  receive ${BULK_BYTES / MiB} MiB, median of ${BULK_RUNS}: direct ${direct.mibs.toFixed(0)} MiB/s, ` +
      `tunnel ${gated.mibs.toFixed(0)} MiB/s, ratio ${(gated.mibs / direct.mibs).toFixed(2)}`,
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

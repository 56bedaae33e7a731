// A request through the sandbox's gate (forwardPorts, a unix socket, the API relay) against the
// same request sent straight to the same local upstream: the latency the gate adds to a small
// request, and the throughput of a large download (a long streamed answer) and upload (a big
// model request). Run: node --import tsx bench/egressRelay.ts [--quick]
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startRelay } from "../src/egress/index.js";
import { startForwarder } from "./support/forwarder.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const SMALL_REQUESTS = quick ? 300 : 2_000;
const BIG_BYTES = (quick ? 16 : 64) * MiB;
const BIG_RUNS = quick ? 3 : 7;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
// Paths on the relay's list for the Anthropic API (GET for the small and the big answer, POST
// for the upload), so the relay forwards them as it forwards an agent's calls.
const SMALL_PATH = "/v1/models";
const BIG_PATH = "/v1/models/big";
const UPLOAD_PATH = "/v1/messages";

/** The local upstream: a small JSON answer, a large streamed body, and an upload sink. */
const upstream = createServer((req, res) => {
  let received = 0;
  req.on("data", (chunk: Buffer) => (received += chunk.length));
  req.on("end", () => {
    if (req.url === BIG_PATH) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      let sent = 0;
      const pump = (): void => {
        while (sent < BIG_BYTES) {
          sent += CHUNK.length;
          if (!res.write(CHUNK)) {
            res.once("drain", pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "msg_1", type: "message", received }));
  });
});

/** One request; resolves with the milliseconds it took and the bytes of the answer. */
function timed(
  port: number,
  agent: Agent,
  path: string,
  body?: Buffer,
): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      agent,
      method: body === undefined ? "GET" : "POST",
      headers: { "x-api-key": "placeholder", "content-type": "application/json" },
    });
    req.on("response", (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => {
        resolve({ ms: performance.now() - started, bytes });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface Figures {
  readonly smallMs: number;
  readonly downloadMiBs: number;
  readonly uploadMiBs: number;
}

async function measure(port: number): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < 50; i++) await timed(port, agent, SMALL_PATH);
    const small: number[] = [];
    for (let i = 0; i < SMALL_REQUESTS; i++) small.push((await timed(port, agent, SMALL_PATH)).ms);
    const down: number[] = [];
    const up: number[] = [];
    const upload = Buffer.alloc(BIG_BYTES, 0x62);
    for (let i = 0; i < BIG_RUNS; i++) {
      const d = await timed(port, agent, BIG_PATH);
      if (d.bytes !== BIG_BYTES) throw new Error(`download came back with ${d.bytes} bytes`);
      down.push(BIG_BYTES / MiB / (d.ms / 1000));
      const u = await timed(port, agent, UPLOAD_PATH, upload);
      up.push(BIG_BYTES / MiB / (u.ms / 1000));
    }
    return { smallMs: median(small), downloadMiBs: median(down), uploadMiBs: median(up) };
  } finally {
    agent.destroy();
  }
}

const dir = await mkdtemp(join(tmpdir(), "warden-bench-"));
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const address = upstream.address();
const upstreamPort = typeof address === "object" && address !== null ? address.port : 0;
const socketPath = join(dir, "relay.sock");
const relay = await startRelay({
  socketPath,
  upstream: `http://127.0.0.1:${upstreamPort}`,
  apiKey: "bench-real-key",
  placeholderKey: "placeholder",
});
// The forwarder runs in a process of its own, as the runner does inside the sandbox.
const { port: forwardPort, process: forwarder } = await startForwarder(socketPath);

try {
  // Alternate the two, so that a noisy neighbour on this shared machine hits both alike.
  const direct: Figures[] = [];
  const gated: Figures[] = [];
  for (let round = 0; round < 2; round++) {
    direct.push(await measure(upstreamPort));
    gated.push(await measure(forwardPort));
  }
  const pick = (list: Figures[], key: keyof Figures): number => median(list.map((f) => f[key]));
  const d = {
    small: pick(direct, "smallMs"),
    down: pick(direct, "downloadMiBs"),
    up: pick(direct, "uploadMiBs"),
  };
  const g = {
    small: pick(gated, "smallMs"),
    down: pick(gated, "downloadMiBs"),
    up: pick(gated, "uploadMiBs"),
  };
  console.log(
    `egress relay: forwardPorts + unix socket + relay vs direct to the same local upstream${quick ? " (quick)" : ""}`,
  );
  console.log(
    `  small request, median of ${SMALL_REQUESTS} (keep-alive): direct ${(d.small * 1000).toFixed(0)} µs, ` +
      `gated ${(g.small * 1000).toFixed(0)} µs, added ${((g.small - d.small) * 1000).toFixed(0)} µs, ratio ${(g.small / d.small).toFixed(2)}x`,
  );
  console.log(
    `  download ${BIG_BYTES / MiB} MiB, median of ${BIG_RUNS}: direct ${d.down.toFixed(0)} MiB/s, ` +
      `gated ${g.down.toFixed(0)} MiB/s, ratio ${(g.down / d.down).toFixed(2)}`,
  );
  console.log(
    `  upload ${BIG_BYTES / MiB} MiB, median of ${BIG_RUNS}: direct ${d.up.toFixed(0)} MiB/s, ` +
      `gated ${g.up.toFixed(0)} MiB/s, ratio ${(g.up / d.up).toFixed(2)}`,
  );
} finally {
  forwarder.kill();
  await relay.close();
  await new Promise<void>((resolve) =>
    upstream.close(() => {
      resolve();
    }),
  );
  await rm(dir, { recursive: true, force: true });
}

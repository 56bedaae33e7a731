import { strict as assert } from "node:assert";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { startProxy } from "../../src/egress/index.js";
import type { RunningProxy } from "../../src/egress/startProxy.js";
import { forwardPorts, type ForwardedPorts } from "../../src/guest/forwardPorts.js";
import { LIMITS } from "../../src/protocol/index.js";
import {
  closeServer,
  listen,
  openTunnel,
  startEchoServer,
  tempDir,
  type EchoServer,
} from "./localPeers.js";

const MiB = 1024 * 1024;
/** Many times every buffer and read pool of the tunnel, so each fills, pauses and turns over. */
const PAYLOAD = randomBytes(12 * MiB + 123);

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Reads a socket to its end, after an optional pause in which nothing is read. */
async function readAll(socket: Socket, lateMs = 0): Promise<Buffer> {
  socket.pause();
  if (lateMs > 0) await sleep(lateMs);
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  await once(socket, "end");
  return Buffer.concat(chunks);
}

describe("bulk transfers through forwardPorts and the CONNECT proxy", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let echo: EchoServer;
  let proxy: RunningProxy;
  let forward: ForwardedPorts;
  let port: number;
  // Sends the payload the moment a connection opens, before the client has said anything.
  const speaker = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    socket.end(PAYLOAD);
  });
  let speakerPort: number;

  before(async () => {
    dir = await tempDir();
    echo = await startEchoServer();
    speakerPort = await listen(speaker, 0);
    const socketPath = join(dir.path, "proxy.sock");
    proxy = await startProxy({
      socketPath,
      allow: [`127.0.0.1:${echo.port}`, `127.0.0.1:${speakerPort}`],
      log: join(dir.path, "proxy.log"),
    });
    forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    port = forward.ports[0] ?? 0;
  });

  after(async () => {
    await forward.close();
    await proxy.close();
    await echo.close();
    await closeServer(speaker);
    await dir.remove();
  });

  test("the payload is far larger than the tunnel's buffers", () => {
    assert.ok(PAYLOAD.length > 8 * (LIMITS.tunnelBufferBytes + LIMITS.tunnelReadPoolBytes));
  });

  test("12 MiB sent up and echoed down at the same time arrive byte-identical", async () => {
    const tunnel = await openTunnel({ host: "127.0.0.1", port }, `127.0.0.1:${echo.port}`);
    assert.equal(tunnel.status, 200);
    const received = readAll(tunnel.socket);
    tunnel.socket.end(PAYLOAD);
    const bytes = await received;
    assert.equal(bytes.length, PAYLOAD.length + "bye\n".length);
    assert.equal(sha256(bytes.subarray(0, PAYLOAD.length)), sha256(PAYLOAD));
    assert.equal(bytes.subarray(PAYLOAD.length).toString(), "bye\n");
  });

  test("a target that sends at once is heard only after the proxy's answer, and whole by a client that reads late", async () => {
    const tunnel = await openTunnel({ host: "127.0.0.1", port }, `127.0.0.1:${speakerPort}`);
    assert.equal(tunnel.status, 200);
    assert.match(tunnel.head, /^HTTP\/1\.1 200 Connection established\r\n\r\n/);
    // The client reads nothing for a while, so every buffer on the way fills and pauses.
    const bytes = await readAll(tunnel.socket, 300);
    assert.equal(bytes.length, PAYLOAD.length);
    assert.equal(sha256(bytes), sha256(PAYLOAD));
  });

  test("ten bulk downloads at once each arrive whole", async () => {
    const downloads = Array.from({ length: 10 }, async () => {
      const tunnel = await openTunnel({ host: "127.0.0.1", port }, `127.0.0.1:${speakerPort}`);
      assert.equal(tunnel.status, 200);
      return sha256(await readAll(tunnel.socket));
    });
    for (const digest of await Promise.all(downloads)) assert.equal(digest, sha256(PAYLOAD));
  });
});

import { strict as assert } from "node:assert";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as tick, setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { joinSockets, tunnelReads } from "../../src/protocol/index.js";

const PAYLOAD = randomBytes(3 * 1024 * 1024 + 7);

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function listening(server: Server, where: string | number): Promise<void> {
  return new Promise((resolve) => server.listen(where, resolve));
}

/**
 * A source that sends the payload in small pieces, one per turn of the event loop, so the
 * tunnel sees many small reads; a front on a unix socket (small kernel buffers) that dials it
 * with tunnelReads; and a client of the front that reads only after a while, so the front's
 * writes queue up while reads keep coming.
 */
test("small reads queued behind a slow reader are each delivered intact and in order", async () => {
  const dir = await mkdtemp(join(tmpdir(), "warden-reads-"));
  const source = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    void (async () => {
      for (let at = 0; at < PAYLOAD.length; at += 4096) {
        if (!socket.write(PAYLOAD.subarray(at, at + 4096))) await once(socket, "drain");
        await tick();
      }
      socket.end();
    })();
  });
  await listening(source, 0);
  const address = source.address();
  const sourcePort = typeof address === "object" && address !== null ? address.port : 0;
  const front = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    const reads = tunnelReads();
    const dialed = connect({
      host: "127.0.0.1",
      port: sourcePort,
      allowHalfOpen: true,
      onread: reads.onread,
    });
    dialed.pause();
    dialed.once("connect", () => {
      joinSockets(client, dialed, reads);
    });
  });
  const frontPath = join(dir, "front.sock");
  await listening(front, frontPath);
  try {
    const client: Socket = connect({ path: frontPath });
    client.pause();
    await sleep(300);
    const chunks: Buffer[] = [];
    client.on("data", (chunk: Buffer) => chunks.push(chunk));
    client.resume();
    await once(client, "end");
    const bytes = Buffer.concat(chunks);
    assert.equal(bytes.length, PAYLOAD.length);
    assert.equal(sha256(bytes), sha256(PAYLOAD));
  } finally {
    source.close();
    front.close();
    await rm(dir, { recursive: true, force: true });
  }
});

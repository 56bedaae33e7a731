import { strict as assert } from "node:assert";
import { createServer, connect, type Socket } from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MAX_FORWARDED_CONNECTIONS, forwardPorts } from "../../src/guest/forwardPorts.js";
import {
  closedWithin,
  exchange,
  listen,
  closeServer,
  readUntil,
  startEchoServer,
  tempDir,
} from "./localPeers.js";

/** Opens a TCP connection to a forwarded port and waits until it is connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    socket.once("connect", () => {
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

describe("forwardPorts", () => {
  test("many concurrent connections each get their own bytes back through the unix socket", async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "echo.sock");
    const echo = await startEchoServer(socketPath);
    const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    try {
      const port = forward.ports[0] ?? 0;
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          exchange({ host: "127.0.0.1", port }, `connection ${i} ${"x".repeat(i * 100)}\n`, {
            end: true,
          }),
        ),
      );
      results.forEach((result, i) => {
        assert.equal(result.timedOut, false);
        assert.equal(
          result.text,
          `connection ${i} ${"x".repeat(i * 100)}\nbye\n`,
          `connection ${i}`,
        );
      });
      assert.equal(echo.accepted(), 100);
    } finally {
      await forward.close();
      await echo.close();
      await dir.remove();
    }
  });

  test("a half-close from the client reaches the host, and the host's answer still comes back", async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "late.sock");
    // This server answers only after the client has ended its side.
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("end", () => {
        setTimeout(
          () => socket.end(`got ${Buffer.concat(chunks).length} bytes after your end\n`),
          50,
        );
      });
    });
    await listen(server, socketPath);
    const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    try {
      const result = await exchange({ host: "127.0.0.1", port: forward.ports[0] ?? 0 }, "12345", {
        end: true,
      });
      assert.equal(result.text, "got 5 bytes after your end\n");
    } finally {
      await forward.close();
      await closeServer(server);
      await dir.remove();
    }
  });

  test("a connection whose unix socket is missing is closed, and the listener serves the next once it exists", async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "later.sock");
    const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    try {
      const port = forward.ports[0] ?? 0;
      const first = await exchange({ host: "127.0.0.1", port }, "anyone there?\n");
      assert.equal(first.timedOut, false);
      assert.equal(first.text, "");
      const echo = await startEchoServer(socketPath);
      const second = await exchange({ host: "127.0.0.1", port }, "now?\n", { end: true });
      assert.equal(second.text, "now?\nbye\n");
      await echo.close();
    } finally {
      await forward.close();
      await dir.remove();
    }
  });

  test("a client that resets mid-transfer, or a host side that dies, does not take the listener down", async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "echo.sock");
    const echo = await startEchoServer(socketPath);
    const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    try {
      const port = forward.ports[0] ?? 0;
      const resetter = await open(port);
      resetter.write("x".repeat(64 * 1024));
      resetter.resetAndDestroy();
      const victim = await open(port);
      victim.write("hello\n");
      await readUntil(victim, "hello\n");
      // The host side goes away under a live connection: the client sees its connection close.
      await echo.close();
      assert.equal(await closedWithin(victim, 2_000), true);
      const echoAgain = await startEchoServer(socketPath);
      const after = await exchange({ host: "127.0.0.1", port }, "still serving\n", { end: true });
      assert.equal(after.text, "still serving\nbye\n");
      await echoAgain.close();
    } finally {
      await forward.close();
      await dir.remove();
    }
  });

  test(`connections past ${MAX_FORWARDED_CONNECTIONS} at once are closed, and the ones held keep working`, async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "echo.sock");
    const echo = await startEchoServer(socketPath);
    const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    const held: Socket[] = [];
    try {
      const port = forward.ports[0] ?? 0;
      for (let i = 0; i < MAX_FORWARDED_CONNECTIONS; i++) held.push(await open(port));
      // Let the forwarder accept every one of them before the one too many arrives.
      const probe = held[held.length - 1];
      assert.ok(probe);
      probe.write("ready\n");
      await readUntil(probe, "ready\n");
      const extra = await exchange({ host: "127.0.0.1", port }, "one too many\n", {
        timeoutMs: 2_000,
      });
      assert.equal(extra.timedOut, false, "the extra connection was closed");
      assert.equal(extra.text, "");
      const first = held[0];
      assert.ok(first);
      first.write("first\n");
      assert.equal(await readUntil(first, "first\n"), "first\n");
    } finally {
      for (const socket of held) socket.destroy();
      await forward.close();
      await echo.close();
      await dir.remove();
    }
  });

  test("close() stops every listener and cuts the connections in flight", async () => {
    const dir = await tempDir();
    const socketPath = join(dir.path, "echo.sock");
    const echo = await startEchoServer(socketPath);
    const forward = await forwardPorts([
      { host: "127.0.0.1", port: 0, socketPath },
      { host: "127.0.0.1", port: 0, socketPath },
    ]);
    try {
      assert.equal(forward.ports.length, 2);
      assert.notEqual(forward.ports[0], forward.ports[1]);
      const live = await open(forward.ports[1] ?? 0);
      live.write("hi\n");
      await readUntil(live, "hi\n");
      await forward.close();
      assert.equal(await closedWithin(live, 2_000), true);
      for (const port of forward.ports) {
        await assert.rejects(open(port), { code: "ECONNREFUSED" });
      }
    } finally {
      await echo.close();
      await dir.remove();
    }
  });

  test("a port that is taken fails the call and closes the ports already opened", async () => {
    const dir = await tempDir();
    const taken = createServer();
    const takenPort = await listen(taken, 0);
    const socketPath = join(dir.path, "none.sock");
    try {
      const probe = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
      const free = probe.ports[0] ?? 0;
      await probe.close();
      await assert.rejects(
        forwardPorts([
          { host: "127.0.0.1", port: free, socketPath },
          { host: "127.0.0.1", port: takenPort, socketPath },
        ]),
        { code: "EADDRINUSE" },
      );
      await assert.rejects(open(free), { code: "ECONNREFUSED" });
    } finally {
      await closeServer(taken);
      await dir.remove();
    }
  });
});

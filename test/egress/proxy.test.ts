import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { startProxy } from "../../src/egress/index.js";
import { EGRESS_LIMITS } from "../../src/egress/limits.js";
import type { RunningProxy } from "../../src/egress/startProxy.js";
import { forwardPorts, type ForwardedPorts } from "../../src/guest/forwardPorts.js";
import {
  closedWithin,
  exchange,
  listen,
  closeServer,
  openTunnel,
  readUntil,
  startEchoServer,
  tempDir,
  type EchoServer,
} from "./localPeers.js";
import { skipWhen } from "../support/skipWhen.js";

const run = promisify(execFile);

const curlMissing = skipWhen(
  await run("curl", ["--version"]).then(
    () => false as const,
    () => "curl is not installed",
  ),
);

describe("the CONNECT proxy, reached through forwardPorts and its unix socket", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let echo: EchoServer;
  let unlisted: EchoServer;
  let proxy: RunningProxy;
  let forward: ForwardedPorts;
  let port: number;
  let logPath: string;
  const web = createHttpServer((req, res) => {
    res.end(`hello from ${req.url ?? "?"}\n`);
  });
  let webPort: number;
  let closedPort: number;

  before(async () => {
    dir = await tempDir();
    echo = await startEchoServer();
    unlisted = await startEchoServer();
    webPort = await listen(web, 0);
    const closed = await startEchoServer();
    closedPort = closed.port;
    await closed.close();
    logPath = join(dir.path, "proxy.log");
    const socketPath = join(dir.path, "proxy.sock");
    proxy = await startProxy({
      socketPath,
      allow: [
        `127.0.0.1:${echo.port}`,
        `127.0.0.1:${webPort}`,
        `127.0.0.1:${closedPort}`,
        // Allowed by name only: localhost resolves to loopback, so the proxy must refuse it.
        `localhost:${unlisted.port}`,
      ],
      presets: ["npm"],
      log: logPath,
    });
    forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    port = forward.ports[0] ?? 0;
  });

  after(async () => {
    await forward.close();
    await proxy.close();
    await echo.close();
    await unlisted.close();
    await closeServer(web);
    await dir.remove();
  });

  const viaGuest = (): { host: string; port: number } => ({ host: "127.0.0.1", port });
  const logText = (): Promise<string> => readFile(logPath, "utf8");

  test("bytes flow both ways to an allowed loopback server, and a half-close still gets its answer", async () => {
    const tunnel = await openTunnel(viaGuest(), `127.0.0.1:${echo.port}`);
    assert.equal(tunnel.status, 200);
    tunnel.socket.write("ping\n");
    assert.equal(await readUntil(tunnel.socket, "ping\n"), "ping\n");
    tunnel.socket.end();
    assert.match(await readUntil(tunnel.socket, "bye\n"), /bye\n$/);
    assert.equal(await closedWithin(tunnel.socket, 2_000), true);
  });

  test("bytes sent in the same packet as the CONNECT head reach the target", async () => {
    const tunnel = await openTunnel(viaGuest(), `127.0.0.1:${echo.port}`, "early bytes\n");
    assert.equal(tunnel.status, 200);
    const seen =
      tunnel.head.slice(tunnel.head.indexOf("\r\n\r\n") + 4) +
      (await readUntil(tunnel.socket, "early bytes\n"));
    assert.match(seen, /early bytes\n/);
    tunnel.socket.destroy();
  });

  test(
    "curl -p fetches from an allowed server through the proxy",
    { skip: curlMissing },
    async () => {
      const { stdout } = await run("curl", [
        "-sS",
        "-p",
        "--max-time",
        "10",
        "--proxy",
        `http://127.0.0.1:${port}`,
        `http://127.0.0.1:${webPort}/through`,
      ]);
      assert.equal(stdout, "hello from /through\n");
      assert.match(
        await logText(),
        new RegExp(`allow 127\\.0\\.0\\.1:${webPort} by 127\\.0\\.0\\.1:${webPort}`),
      );
    },
  );

  test("a host not on the allow list is refused with 403 and logged with the reason", async () => {
    const tunnel = await openTunnel(viaGuest(), "evil.example.org:443");
    assert.equal(tunnel.status, 403);
    assert.match(tunnel.head, /not on the allow list/);
    assert.equal(await closedWithin(tunnel.socket, 2_000), true);
    assert.match(await logText(), /refuse evil\.example\.org:443 not on the allow list/);
  });

  test("an address on an allowed port but not on the list is refused", async () => {
    const tunnel = await openTunnel(viaGuest(), `127.0.0.1:${unlisted.port}`);
    assert.equal(tunnel.status, 403);
    assert.equal(unlisted.accepted(), 0);
    tunnel.socket.destroy();
  });

  test("localhost allowed by name is refused because it resolves to loopback (the DNS-rebinding defence)", async () => {
    const tunnel = await openTunnel(viaGuest(), `localhost:${unlisted.port}`);
    assert.equal(tunnel.status, 403);
    assert.match(tunnel.head, /resolves to (127\.0\.0\.1|::1), a loopback address/);
    assert.equal(unlisted.accepted(), 0, "the proxy never dialed the loopback server");
    assert.match(
      await logText(),
      new RegExp(`refuse localhost:${unlisted.port} the name resolves to .*loopback`),
    );
    tunnel.socket.destroy();
  });

  test("each target is logged once even when connected to ten times", async () => {
    const target = `127.0.0.1:${echo.port}`;
    for (let i = 0; i < 10; i++) {
      const tunnel = await openTunnel(viaGuest(), target);
      assert.equal(tunnel.status, 200);
      tunnel.socket.destroy();
      const refused = await openTunnel(viaGuest(), "twice.example.org:443");
      assert.equal(refused.status, 403);
      refused.socket.destroy();
    }
    const lines = (await logText()).split("\n");
    assert.equal(lines.filter((line) => line.includes(` allow ${target} `)).length, 1);
    assert.equal(lines.filter((line) => line.includes(" refuse twice.example.org:443 ")).length, 1);
    assert.ok(
      lines.every((line) => line === "" || /^\d{4}-\d\d-\d\dT[\d:.]+Z (allow|refuse) /.test(line)),
      lines.join("\n"),
    );
  });

  test("a target whose port is closed gets 502 and the proxy serves on", async () => {
    const tunnel = await openTunnel(viaGuest(), `127.0.0.1:${closedPort}`);
    assert.equal(tunnel.status, 502);
    assert.match(tunnel.head, /ECONNREFUSED/);
    const next = await openTunnel(viaGuest(), `127.0.0.1:${echo.port}`);
    assert.equal(next.status, 200);
    next.socket.destroy();
  });

  test("a request that is not HTTP gets 400 and is closed", async () => {
    const { text, timedOut } = await exchange(viaGuest(), "\x16\x03\x01 hello tls\r\n\r\n");
    assert.equal(timedOut, false);
    assert.match(text, /^HTTP\/1\.1 400 /);
  });

  test("a target that is not host:port gets 400", async () => {
    const { text } = await exchange(viaGuest(), "CONNECT example.org HTTP/1.1\r\n\r\n");
    assert.match(text, /^HTTP\/1\.1 400 /);
  });

  test("a plain http:// request is refused with 403 and a reason", async () => {
    const { text } = await exchange(
      viaGuest(),
      `GET http://127.0.0.1:${webPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    assert.match(text, /^HTTP\/1\.1 403 /);
    assert.match(text, /only CONNECT/);
  });

  test("a head over the size limit gets 431 and is closed", async () => {
    const big = `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nX-Pad: ${"a".repeat(EGRESS_LIMITS.proxyHeadBytes)}\r\n\r\n`;
    const { text, timedOut } = await exchange(viaGuest(), big);
    assert.equal(timedOut, false);
    assert.match(text, /^HTTP\/1\.1 431 /);
  });

  test("a request line that never ends is cut at the size limit", async () => {
    const { text, timedOut } = await exchange(
      viaGuest(),
      "CONNECT " + "a".repeat(EGRESS_LIMITS.proxyHeadBytes * 2),
    );
    assert.equal(timedOut, false);
    assert.match(text, /^HTTP\/1\.1 431 /);
  });

  test("a slowloris client that trickles its head is answered 408 and closed at the time limit", async () => {
    const socket = connect(viaGuest());
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    const started = Date.now();
    const head = `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nX-Slow: ${"z".repeat(200)}`;
    let i = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed && i < head.length) socket.write(head[i++] ?? "");
    }, 100);
    const closed = await closedWithin(socket, EGRESS_LIMITS.proxyHeadTimeoutMs + 5_000);
    clearInterval(trickle);
    const elapsed = Date.now() - started;
    assert.equal(closed, true, "the proxy closed the slow connection");
    assert.ok(elapsed >= EGRESS_LIMITS.proxyHeadTimeoutMs - 500, `closed after ${elapsed} ms`);
    assert.match(Buffer.concat(chunks).toString(), /^HTTP\/1\.1 408 /);
  });

  test("a client that resets mid-tunnel does not disturb the next one", async () => {
    const tunnel = await openTunnel(viaGuest(), `127.0.0.1:${echo.port}`);
    assert.equal(tunnel.status, 200);
    tunnel.socket.resetAndDestroy();
    const next = await openTunnel(viaGuest(), `127.0.0.1:${echo.port}`);
    next.socket.write("still here\n");
    assert.match(await readUntil(next.socket, "still here\n"), /still here/);
    next.socket.destroy();
  });

  test("proxy.log is private to its owner", async () => {
    assert.equal((await stat(logPath)).mode & 0o777, 0o600);
  });
});

describe("closing the proxy", () => {
  test("close() cuts open tunnels and stops listening", async () => {
    const dir = await tempDir();
    const echo = await startEchoServer();
    const socketPath = join(dir.path, "proxy.sock");
    const proxy = await startProxy({
      socketPath,
      allow: [`127.0.0.1:${echo.port}`],
      log: join(dir.path, "proxy.log"),
    });
    try {
      const tunnel = await openTunnel({ path: socketPath }, `127.0.0.1:${echo.port}`);
      assert.equal(tunnel.status, 200);
      await proxy.close();
      assert.equal(await closedWithin(tunnel.socket, 2_000), true);
      const again = await exchange({ path: socketPath }, "CONNECT x:1 HTTP/1.1\r\n\r\n", {
        timeoutMs: 1_000,
      });
      assert.equal(again.text, "");
    } finally {
      await echo.close();
      await dir.remove();
    }
  });

  test("a bad allow-list entry is refused before anything listens", async () => {
    const dir = await tempDir();
    try {
      await assert.rejects(
        startProxy({
          socketPath: join(dir.path, "p.sock"),
          allow: ["*.com"],
          log: join(dir.path, "proxy.log"),
        }),
        { code: "BAD_ALLOW_ENTRY" },
      );
      await assert.rejects(stat(join(dir.path, "p.sock")), { code: "ENOENT" });
    } finally {
      await dir.remove();
    }
  });
});

import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { mkdir, readdir, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { makePlaceholderKey, startEgress } from "../../src/egress/index.js";
import { EGRESS_SOCKETS, GUEST_PORTS } from "../../src/protocol/names.js";
import { sandboxEnv } from "../../src/egress/sandboxEnv.js";
import { openTunnel, startEchoServer, tempDir } from "./localPeers.js";
import { skipWhen } from "../support/skipWhen.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

const bwrapProbe = await run("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "true"]).then(
  () => false as const,
  () => "bubblewrap is not installed or cannot make a network namespace here",
);
const bwrapMissing = skipWhen(bwrapProbe);

describe("startEgress", () => {
  test("the socket directory is 0700, the sockets and proxy.log 0600, and close() removes the sockets", async () => {
    const dir = await tempDir();
    const egressDir = join(dir.path, "egress");
    const echo = await startEchoServer();
    const egress = await startEgress({
      dir: egressDir,
      log: join(dir.path, "proxy.log"),
      allow: [`127.0.0.1:${echo.port}`],
      relay: {
        upstream: "http://127.0.0.1:9",
        apiKey: "real-key",
        placeholderKey: makePlaceholderKey(),
      },
    });
    try {
      assert.equal((await stat(egressDir)).mode & 0o777, 0o700);
      assert.equal(egress.proxySocket, join(egressDir, EGRESS_SOCKETS.proxy));
      assert.equal(egress.relaySocket, join(egressDir, EGRESS_SOCKETS.relay));
      assert.equal((await stat(egress.proxySocket)).mode & 0o777, 0o600);
      assert.equal((await stat(egress.relaySocket)).mode & 0o777, 0o600);
      const tunnel = await openTunnel({ path: egress.proxySocket }, `127.0.0.1:${echo.port}`);
      assert.equal(tunnel.status, 200);
      tunnel.socket.destroy();
      assert.equal((await stat(join(dir.path, "proxy.log"))).mode & 0o777, 0o600);
    } finally {
      await egress.close();
      await echo.close();
    }
    assert.deepEqual(await readdir(egressDir), []);
    await dir.remove();
  });

  test("sockets left by an earlier attach are replaced, and no relay is started without a key", async () => {
    const dir = await tempDir();
    const options = { dir: join(dir.path, "egress"), log: join(dir.path, "proxy.log"), allow: [] };
    const first = await startEgress(options);
    // A crashed attach leaves its socket file behind; the next attach must still start.
    const second = await startEgress({ ...options, dir: first.dir });
    try {
      assert.equal(second.relaySocket, undefined);
      assert.deepEqual(await readdir(first.dir), [EGRESS_SOCKETS.proxy]);
    } finally {
      await second.close();
      await first.close();
      await dir.remove();
    }
  });

  test("a directory whose socket paths are too long is refused with a hint, before anything is made", async () => {
    const dir = await tempDir();
    const deep = join(dir.path, "d".repeat(100));
    try {
      await assert.rejects(
        startEgress({ dir: deep, log: join(dir.path, "proxy.log"), allow: [] }),
        (error: unknown) => {
          assert.equal((error as { code?: string }).code, "EGRESS_DIR");
          assert.match((error as { hint?: string }).hint ?? "", /shorter path/);
          return true;
        },
      );
      assert.deepEqual(await readdir(dir.path), []);
    } finally {
      await dir.remove();
    }
  });

  test("a symbolic link in place of the socket directory is refused", async () => {
    const dir = await tempDir();
    try {
      await mkdir(join(dir.path, "elsewhere"));
      await symlink(join(dir.path, "elsewhere"), join(dir.path, "egress"));
      await assert.rejects(
        startEgress({ dir: join(dir.path, "egress"), log: join(dir.path, "proxy.log"), allow: [] }),
        { code: "EGRESS_DIR" },
      );
    } finally {
      await dir.remove();
    }
  });

  test("the sandbox's environment points at the forwarded ports and holds only the placeholder", () => {
    const env = sandboxEnv("sk-ant-warden-placeholder-x");
    assert.equal(env.HTTPS_PROXY, `http://127.0.0.1:${GUEST_PORTS.proxy}`);
    assert.equal(env.ANTHROPIC_BASE_URL, `http://127.0.0.1:${GUEST_PORTS.relay}`);
    assert.equal(env.ANTHROPIC_API_KEY, "sk-ant-warden-placeholder-x");
    assert.match(env.NO_PROXY ?? "", /127\.0\.0\.1/);
    assert.equal(sandboxEnv(undefined).ANTHROPIC_API_KEY, undefined);
  });
});

describe("the gate from inside a sandbox without a network", () => {
  test(
    "inside bwrap --unshare-net, as a non-zero uid, an allowed server is reached only through the forwarded proxy",
    { skip: bwrapMissing, timeout: 60_000 },
    async () => {
      const dir = await tempDir();
      const echo = await startEchoServer();
      const egress = await startEgress({
        dir: join(dir.path, "egress"),
        log: join(dir.path, "proxy.log"),
        allow: [`127.0.0.1:${echo.port}`],
      });
      try {
        const { stdout } = await run(
          "bwrap",
          [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            // The checkout may itself live under /tmp, which the tmpfs above hides.
            "--ro-bind",
            root,
            root,
            "--bind",
            egress.dir,
            egress.dir,
            "--unshare-all",
            "--uid",
            "1000",
            "--gid",
            "1000",
            "--die-with-parent",
            "--chdir",
            root,
            "--",
            process.execPath,
            "--import",
            "tsx",
            join(root, "test/egress/guestProbe.ts"),
            egress.proxySocket,
            String(echo.port),
          ],
          { timeout: 50_000 },
        );
        const report = JSON.parse(stdout) as Record<string, string>;
        assert.equal(
          report.allowed,
          "200 from the sandbox",
          "the allowed server answers through the gate",
        );
        assert.equal(report.unlisted, "403", "a host not on the list is refused");
        assert.equal(report.direct, "ECONNREFUSED", "the host's loopback is not the sandbox's");
        assert.equal(report.uid, "1000");
      } finally {
        await egress.close();
        await echo.close();
        await dir.remove();
      }
    },
  );
});

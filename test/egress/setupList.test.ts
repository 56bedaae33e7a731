// The proxy's setup list: while setup runs, the setup's hosts are reachable beside the agent's;
// once the host ends setup they are refused, and every tunnel opened while setup ran is cut, so
// a process that kept one open cannot go on using the wider list.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startProxy } from "../../src/egress/index.js";
import type { RunningProxy } from "../../src/egress/startProxy.js";
import {
  closedWithin,
  openTunnel,
  readUntil,
  startEchoServer,
  tempDir,
  type EchoServer,
} from "./localPeers.js";

describe("the proxy's setup list", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let agentHost: EchoServer;
  let setupHost: EchoServer;
  let proxy: RunningProxy;
  let socketPath: string;

  before(async () => {
    dir = await tempDir();
    agentHost = await startEchoServer();
    setupHost = await startEchoServer();
    socketPath = join(dir.path, "proxy.sock");
    proxy = await startProxy({
      socketPath,
      allow: [`127.0.0.1:${agentHost.port}`],
      setup: { allow: [`127.0.0.1:${setupHost.port}`], presets: [] },
      log: join(dir.path, "proxy.log"),
    });
  });

  after(async () => {
    await proxy.close();
    await agentHost.close();
    await setupHost.close();
    await dir.remove();
  });

  test("setup's host is reached while setup runs, refused after it, and the open tunnel is cut", async () => {
    const during = await openTunnel({ path: socketPath }, `127.0.0.1:${setupHost.port}`);
    assert.equal(during.status, 200);
    during.socket.write("during\n");
    assert.equal(await readUntil(during.socket, "during\n"), "during\n");
    const agentDuring = await openTunnel({ path: socketPath }, `127.0.0.1:${agentHost.port}`);
    assert.equal(agentDuring.status, 200, "the agent's hosts stay reachable during setup");

    proxy.endSetup();
    assert.equal(await closedWithin(during.socket, 2_000), true, "the setup's tunnel stayed open");
    const afterwards = await openTunnel({ path: socketPath }, `127.0.0.1:${setupHost.port}`);
    assert.equal(afterwards.status, 403);
    afterwards.socket.destroy();
    const agentAfter = await openTunnel({ path: socketPath }, `127.0.0.1:${agentHost.port}`);
    assert.equal(agentAfter.status, 200);
    agentAfter.socket.destroy();
    agentDuring.socket.destroy();
  });
});

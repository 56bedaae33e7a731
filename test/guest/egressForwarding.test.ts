import { strict as assert } from "node:assert";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startEgressForwarding } from "../../src/guest/egressForwarding.js";

async function listenUnix(path: string, reply: string): Promise<Server> {
  const server = createServer((socket) => {
    socket.end(reply);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

async function readFrom(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("end", () => {
      resolve(text);
    });
    socket.on("error", reject);
  });
}

test("without a sockets directory the agent gets no proxy variables at all", async () => {
  const forwarding = await startEgressForwarding(undefined, "any");
  assert.deepEqual(forwarding.env, {});
  await forwarding.close();
});

test("each socket present gets a loopback forwarder, and the agent's variables name its port", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "warden-egress-fwd-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const proxy = await listenUnix(join(dir, "proxy.sock"), "from proxy");
  t.after(() => proxy.close());
  const forwarding = await startEgressForwarding(dir, "any");
  t.after(() => forwarding.close());
  const url = new URL(forwarding.env.HTTPS_PROXY ?? "");
  assert.equal(url.hostname, "127.0.0.1");
  assert.notEqual(url.port, "3128", "'any' must not take the fixed port");
  assert.equal(forwarding.env.NO_PROXY, "127.0.0.1,localhost,::1");
  assert.equal(forwarding.env.ANTHROPIC_BASE_URL, undefined, "no relay socket, no relay URL");
  assert.equal(await readFrom(Number(url.port)), "from proxy");
});

test("with a relay socket the agent's ANTHROPIC_BASE_URL reaches it", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "warden-egress-fwd-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const relay = await listenUnix(join(dir, "relay.sock"), "from relay");
  t.after(() => relay.close());
  const forwarding = await startEgressForwarding(dir, "any");
  t.after(() => forwarding.close());
  assert.equal(forwarding.env.HTTPS_PROXY, undefined);
  const url = new URL(forwarding.env.ANTHROPIC_BASE_URL ?? "");
  assert.equal(await readFrom(Number(url.port)), "from relay");
});

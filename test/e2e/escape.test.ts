// From inside the sandbox, an agent tries every way out the whole system might leave open. Each
// attempt must fail, and the test says which one did not. Through the gate, the one allowed
// server is reached, and the API relay hands the real key to the API while the sandbox holds
// only a placeholder.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cleanEnv, NO_SYSTEM, runCli, workspace, type Workspace } from "./fixtures.js";

interface Report {
  hostLoopback: { reached: boolean; data?: string; error?: string };
  lookup: { resolved: boolean; error?: string };
  resolve: { resolved: boolean; error?: string };
  unlisted: { status: number | null; data: string };
  privateName: { status: number | null; data: string };
  allowed: { status: number | null; data: string };
  relay: { status?: number; body?: string; error?: string };
  placeholder: string | null;
  keyFound: string[];
  placeholderFound: string[];
  etcWrite?: { written: boolean; code: string | null; message?: string };
}

function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

describe("escape attempts from inside the sandbox", { skip: NO_SYSTEM }, () => {
  const realKey = `sk-ant-real-${randomBytes(12).toString("hex")}`;
  const apiHeaders: IncomingHttpHeaders[] = [];
  const servers: { close(): void }[] = [];
  let ws: Workspace;
  let report: Report;
  let proxyLog: string;

  before(async () => {
    ws = await workspace();
    // A server on the host's loopback the sandbox must not reach directly.
    const host = createServer((socket) => socket.end("host-secret-banner\n"));
    // A server the allow list names by address: reached through the proxy.
    const allowed = createHttpServer((_req, res) => res.end("hello from the allowed server"));
    // A name allowed by the list that resolves to loopback: refused by the proxy.
    const privateName = createServer((socket) => socket.end("private-banner\n"));
    // The API the relay forwards to (the host's ANTHROPIC_BASE_URL).
    const api = createHttpServer((req, res) => {
      apiHeaders.push(req.headers);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"type":"message","content":[]}');
      });
    });
    servers.push(host, allowed, privateName, api);
    const [hostPort, allowedPort, privatePort, apiPort] = await Promise.all(
      [host, allowed, privateName, api].map(listen),
    );
    const probe = await readFile(new URL("./fixtures/escapeProbe.js", import.meta.url), "utf8");
    const reversed = Buffer.from(realKey).reverse().toString("latin1");
    const run = await runCli(
      ws.dataDir,
      [
        "run",
        "--repo",
        ws.repo,
        "--prompt",
        "try to get out",
        "--allow",
        `127.0.0.1:${allowedPort}`,
        "--allow",
        `localhost:${privatePort}`,
        "--json",
        "--",
        "node",
        "--input-type=module",
        "-e",
        probe,
        String(hostPort),
        String(allowedPort),
        String(privatePort),
        reversed,
      ],
      {
        env: cleanEnv({
          ANTHROPIC_API_KEY: realKey,
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
        }),
      },
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const id = (JSON.parse(run.stdout) as { id: string }).id;
    const results = join(ws.dataDir, "tasks", id, "results");
    const result = JSON.parse(await readFile(join(results, "result.json"), "utf8")) as {
      agentResult?: Report;
    };
    assert.ok(result.agentResult !== undefined, "the probe reported");
    report = result.agentResult;
    proxyLog = await readFile(join(results, "proxy.log"), "utf8");
  });

  after(async () => {
    for (const server of servers) server.close();
    await ws.cleanup();
  });

  test("a server on the host's 127.0.0.1 cannot be reached", () => {
    assert.equal(report.hostLoopback.reached, false, JSON.stringify(report.hostLoopback));
    assert.doesNotMatch(report.hostLoopback.data ?? "", /host-secret-banner/);
  });

  test("no name can be resolved", () => {
    assert.equal(report.lookup.resolved, false, "dns.lookup resolved a name");
    assert.equal(report.resolve.resolved, false, "a DNS query was answered");
  });

  test("a host not on the allow list is refused by the proxy", () => {
    assert.equal(report.unlisted.status, 403, report.unlisted.data);
    assert.match(proxyLog, /refuse unlisted\.example\.org:443 not on the allow list/);
  });

  test("an allowed name that resolves to a private address is refused by the proxy", () => {
    assert.equal(report.privateName.status, 403, report.privateName.data);
    assert.doesNotMatch(report.privateName.data, /private-banner/);
    assert.match(proxyLog, /refuse localhost:\d+ .*loopback/);
  });

  test("the real API key is nowhere in the sandbox: not in the environment, nor in any file", () => {
    assert.deepEqual(report.keyFound, [], `found the real key in ${report.keyFound.join(", ")}`);
    assert.match(report.placeholder ?? "", /^sk-ant-warden-placeholder-/);
    // The same search finds the placeholder, so it would have found the key.
    assert.ok(report.placeholderFound.includes("process.env"), report.placeholderFound.join(", "));
    assert.ok(
      report.placeholderFound.includes("/share/task.json"),
      report.placeholderFound.join(", "),
    );
  });

  test("/etc is read-only", () => {
    // Only the read-only mount answers EROFS: a writable /etc the sandbox's uid may not write
    // to answers EACCES, which is a different and weaker defence.
    assert.ok(report.etcWrite !== undefined, "the probe did not report its write to /etc");
    const { written, code, message } = report.etcWrite;
    assert.equal(written, false, "the probe wrote /etc/warden-probe");
    assert.equal(code, "EROFS", message);
    assert.equal(existsSync("/etc/warden-probe"), false);
  });

  test("an allowed loopback server is reached through the proxy", () => {
    assert.equal(report.allowed.status, 200, report.allowed.data);
    assert.match(report.allowed.data, /hello from the allowed server/);
    assert.match(proxyLog, /allow 127\.0\.0\.1:\d+/);
  });

  test("the relay gives the API the real key while the sandbox held only the placeholder", () => {
    assert.equal(report.relay.status, 200, JSON.stringify(report.relay));
    assert.equal(apiHeaders.length, 1);
    const headers = apiHeaders[0] ?? {};
    assert.equal(headers["x-api-key"], realKey);
    assert.equal(
      headers.authorization,
      undefined,
      "the sandbox's own credential header is dropped",
    );
    assert.notEqual(report.placeholder, realKey);
  });
});

import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { startMetadataServer } from "../../src/guest/metadataServer.js";
import type { Settings } from "../../src/protocol/index.js";

const settings: Settings = {
  agent: "command",
  command: ["agent", "--api-key=secret-in-argv"],
  taskId: "01jd8x3y4z5a6b7c8d9e0f1g2h",
  hop: 1,
  model: "some-model",
  timeoutSeconds: 60,
};
const base = "b".repeat(40);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function call(
  url: string,
  path: string,
  method = "GET",
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"] ?? "",
          body: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

test("the metadata server is not ready until the workspace is, and healthy throughout", async (t) => {
  const server = await startMetadataServer({ settings, port: 0 });
  t.after(() => server.close());
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:[0-9]+$/);
  assert.equal((await call(server.url, "/healthz")).status, 200);
  assert.equal((await call(server.url, "/readyz")).status, 503);
  assert.equal((await call(server.url, "/metadata/v1/workspaces")).status, 503);
  server.setReady({ path: "/workspace", base });
  assert.equal((await call(server.url, "/readyz")).status, 200);
  assert.equal((await call(server.url, "/healthz?probe=1")).status, 200);
});

test("the task document is YAML of the public settings and the workspace", async (t) => {
  const server = await startMetadataServer({ settings, port: 0 });
  t.after(() => server.close());
  const before = parse((await call(server.url, "/metadata/v1/task")).body) as Record<
    string,
    unknown
  >;
  assert.equal(before.base, undefined, "no base before the workspace is ready");
  server.setReady({ path: "/workspace", base });
  const answer = await call(server.url, "/metadata/v1/task");
  assert.equal(answer.status, 200);
  assert.match(answer.type, /^application\/yaml/);
  assert.deepEqual(parse(answer.body), {
    taskId: settings.taskId,
    hop: 1,
    agent: "command",
    model: "some-model",
    timeoutSeconds: 60,
    workspace: "/workspace",
    base,
    branch: "warden/task",
  });
  assert.doesNotMatch(answer.body, /secret-in-argv/, "the command line is not shown");
});

test("the workspaces are a stream of YAML documents, one per workspace", async (t) => {
  const server = await startMetadataServer({ settings, port: 0 });
  t.after(() => server.close());
  server.setReady({ path: "/workspace", base });
  const answer = await call(server.url, "/metadata/v1/workspaces");
  const documents = parseAllDocuments(answer.body);
  assert.ok(Array.isArray(documents));
  assert.deepEqual(
    documents.map((d) => d.toJS() as unknown),
    [{ name: "main", path: "/workspace", base, branch: "warden/task" }],
  );
});

test("anything else is 404, a write is 405, and HEAD has headers without a body", async (t) => {
  const server = await startMetadataServer({ settings, port: 0 });
  t.after(() => server.close());
  for (const path of ["/", "/metadata/v1", "/metadata/v1/task/..", "/metadata/v2/task"]) {
    assert.equal((await call(server.url, path)).status, 404, path);
  }
  const post = await call(server.url, "/metadata/v1/task", "POST");
  assert.equal(post.status, 405);
  const head = await call(server.url, "/healthz", "HEAD");
  assert.equal(head.status, 200);
  assert.equal(head.body, "");
});

test("with bound workspaces, the list names each after the task's own, in binding order", async (t) => {
  const server = await startMetadataServer({ settings, port: 0 });
  t.after(() => server.close());
  const other = "c".repeat(40);
  server.setReady({ path: "/workspace/main", base, source: "/src/app" }, [
    { name: "lib", path: "/workspace/lib", base: other, source: "/src/lib" },
    { name: "docs", path: "/workspace/docs", base, source: "/src/docs" },
  ]);
  const answer = await call(server.url, "/metadata/v1/workspaces");
  assert.equal(answer.status, 200);
  assert.deepEqual(
    parseAllDocuments(answer.body).map((d) => d.toJS() as unknown),
    [
      { name: "main", path: "/workspace/main", base, branch: "warden/task", source: "/src/app" },
      {
        name: "lib",
        path: "/workspace/lib",
        base: other,
        branch: "warden/task",
        source: "/src/lib",
      },
      { name: "docs", path: "/workspace/docs", base, branch: "warden/task", source: "/src/docs" },
    ],
  );
});

test("the runner's code loads no YAML library until the metadata server is asked for a document", () => {
  // A fresh process: it loads the whole runner (all that main.ts imports), starts the server
  // and says whether the yaml package was loaded before and after one request for YAML.
  const script = `
    import { createRequire } from "node:module";
    import { request } from "node:http";
    const require = createRequire(import.meta.url);
    const yamlLoaded = () =>
      Object.keys(require.cache).some((path) => path.includes("/node_modules/yaml/"));
    await import("./src/guest/runTask.ts");
    await import("./src/guest/options.ts");
    const { startMetadataServer } = await import("./src/guest/metadataServer.ts");
    const server = await startMetadataServer({
      settings: { agent: "command", command: ["true"], taskId: "t" },
      port: 0,
    });
    const before = yamlLoaded();
    const body = await new Promise((resolve, reject) => {
      request(server.url + "/metadata/v1/task", (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve(text));
      }).on("error", reject).end();
    });
    await server.close();
    console.log(JSON.stringify({ before, after: yamlLoaded(), body }));
  `;
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", script],
    { cwd: ROOT, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  const seen = JSON.parse(run.stdout) as { before: boolean; after: boolean; body: string };
  assert.equal(seen.before, false, "the runner's modules loaded the yaml package");
  assert.equal(seen.after, true, "the request loaded it");
  assert.deepEqual(parse(seen.body), { taskId: "t", hop: 0, agent: "command" });
});

// The contract every sandbox backend keeps, run against each of them (see contract.test.ts).
import { strict as assert } from "node:assert";
import { readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { SandboxBackend } from "../../src/sandbox/index.js";
import type { SkipReason } from "../support/skipWhen.js";
import {
  finish,
  goneWithin,
  HUNG_TEST_MS,
  killedAtEnd,
  makeTaskDirs,
  probe,
  removeTaskDirs,
  request,
  waitFor,
  type TaskDirs,
} from "./sandboxFixture.js";

export function sandboxContract(makeBackend: () => SandboxBackend, skip: SkipReason): void {
  const name = skip === false ? makeBackend().name : "backend";
  describe(`the sandbox contract (${name})`, { skip }, () => {
    let backend: SandboxBackend;
    let dirs: TaskDirs;
    before(async () => {
      backend = makeBackend();
      dirs = await makeTaskDirs();
    });
    after(async () => {
      await removeTaskDirs(dirs);
    });

    test("what the runner writes to stdout and to stderr both arrive", async () => {
      const run = await finish(await backend.start(request(dirs, probe("streams"))));
      assert.equal(run.stdout, "to stdout\n");
      assert.match(run.stderr, /to stderr\n$/);
      assert.equal(run.exit.code, 0);
    });

    test("a backend that does not isolate says so once, in its warnings, and not on stderr", async () => {
      const sandbox = await backend.start(request(dirs, probe("streams")));
      const run = await finish(sandbox);
      assert.equal(run.stderr, "to stderr\n");
      if (backend.isolated) assert.deepEqual(sandbox.warnings, []);
      else
        assert.match(
          sandbox.warnings[0] ?? "",
          /^WARNING: sandbox `none`: the runner is NOT isolated/,
        );
    });

    test("the runner's exit code passes through", async () => {
      const run = await finish(await backend.start(request(dirs, probe("streams", "7"))));
      assert.equal(run.exit.code, 7);
    });

    test("the runner is told where the share, the workspace and its scratch are", async () => {
      const run = await finish(await backend.start(request(dirs, probe("flags"))));
      const argv = JSON.parse(run.stdout) as string[];
      for (const flag of ["--share", "--workspace", "--scratch"]) {
        assert.ok(argv.includes(flag), `${flag} is missing from ${run.stdout}`);
      }
      assert.equal(argv.includes("--own-pid-namespace"), backend.isolated);
    });

    test("the workspace is writable and the share is read-only", async () => {
      const run = await finish(await backend.start(request(dirs, probe("files"))));
      const report = JSON.parse(run.stdout) as Record<string, string>;
      assert.equal(report.workspace, "ok");
      assert.equal(report.shareRead, "ok");
      assert.equal(report.scratch, "ok");
      assert.equal(report.home, "ok");
      assert.equal(await readFile(join(dirs.workspace, "hello.txt"), "utf8"), "hello");
      if (backend.isolated) {
        assert.equal(report.share, "EROFS");
        await assert.rejects(stat(join(dirs.share, "planted.txt")), { code: "ENOENT" });
      }
      await rm(join(dirs.workspace, "hello.txt"));
      await rm(join(dirs.share, "planted.txt"), { force: true });
    });

    test("the environment is clean: a host secret does not appear, the request's env does", async () => {
      process.env.ANTHROPIC_API_KEY = "sk-ant-host-secret-never-inside";
      try {
        const run = await finish(
          await backend.start(request(dirs, probe("env"), { env: { WARDEN_TASK_ID: "abc" } })),
        );
        assert.doesNotMatch(run.stdout, /sk-ant-host-secret/);
        const env = JSON.parse(run.stdout) as Record<string, string>;
        assert.equal(env.ANTHROPIC_API_KEY, undefined);
        assert.equal(env.WARDEN_TASK_ID, "abc");
        assert.notEqual(env.HOME, process.env.HOME);
      } finally {
        delete process.env.ANTHROPIC_API_KEY;
      }
    });

    test("a host unix socket is reachable by its name", async () => {
      const path = join(dirs.root, "host.sock");
      const server = createServer((s) => s.end("hello from the host"));
      await new Promise<void>((resolve) => server.listen(path, resolve));
      try {
        const run = await finish(
          await backend.start(
            request(dirs, probe("socket", "host"), { sockets: [{ name: "host", path }] }),
          ),
        );
        assert.equal(run.stdout, "hello from the host");
      } finally {
        server.close();
      }
    });

    test(
      "stop(grace) sends SIGTERM to the runner, which sends what it has",
      { timeout: HUNG_TEST_MS },
      async (t) => {
        const marker = killedAtEnd(t, "handle-term");
        const sandbox = await backend.start(request(dirs, probe("handle-term", marker)));
        await waitFor(sandbox.stdout, "ready");
        const started = Date.now();
        const [run] = await Promise.all([finish(sandbox), sandbox.stop(10_000)]);
        assert.ok(Date.now() - started < 5_000, "the runner took the SIGTERM at once");
        assert.equal(run.stdout, "sent what it has\n");
        assert.equal(run.exit.code, 0);
      },
    );

    test(
      "stop(grace) ends a runner that ignores SIGTERM once the grace is over",
      { timeout: HUNG_TEST_MS },
      async (t) => {
        const marker = killedAtEnd(t, "ignore-term");
        const sandbox = await backend.start(request(dirs, probe("ignore-term", marker)));
        await waitFor(sandbox.stdout, "ready");
        const started = Date.now();
        const [run] = await Promise.all([finish(sandbox), sandbox.stop(400)]);
        const took = Date.now() - started;
        assert.ok(took >= 400, `stopped after ${took} ms, before the grace`);
        assert.ok(took < 5_000, `stopped after ${took} ms`);
        assert.match(run.stderr, /ignoring SIGTERM/);
        assert.ok(run.exit.signal === "SIGKILL" || run.exit.code === 137, JSON.stringify(run.exit));
      },
    );

    test("nothing the runner started outlives stop", { timeout: HUNG_TEST_MS }, async (t) => {
      const marker = killedAtEnd(t, "outlive");
      const sandbox = await backend.start(request(dirs, probe("grandchild", marker)));
      await waitFor(sandbox.stdout, "ready");
      await sandbox.stop(200);
      assert.deepEqual(await goneWithin(marker, 1_000), []);
    });

    test("stop after the end settles at once", async () => {
      const sandbox = await backend.start(request(dirs, probe("streams")));
      await finish(sandbox);
      // The grace is long so that a stop which waits it out cannot pass on a slow machine.
      const started = Date.now();
      await sandbox.stop(10_000);
      const took = Date.now() - started;
      assert.ok(took < 3_000, `stop after the end took ${took} ms of a 10 s grace`);
    });

    test("a request with a relative workspace is refused before anything starts", async () => {
      await assert.rejects(
        backend.start(request(dirs, probe("streams"), { workspace: "relative/dir" })),
        { code: "BAD_SANDBOX_REQUEST" },
      );
    });
  });
}

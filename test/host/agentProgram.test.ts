// Where the host finds an agent's program and what it binds into the sandbox for it; and the
// refusals before an attach when a Claude Code task cannot run here.
import assert from "node:assert/strict";
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createTask,
  DEV_AGENT_BIN,
  doctorReport,
  executeTask,
  findAgentProgram,
  programBinds,
} from "../../src/host/index.js";
import { hostFixture, NO_SANDBOX, type HostFixture } from "./fixtures.js";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-program-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("finding the agent's program", () => {
  test("a program on PATH is found, its symlink resolved, and a binary is bound alone", async () => {
    const dir = join(root, "bin1");
    const real = join(root, "opt", "claude-bin");
    await mkdir(dir, { recursive: true });
    await mkdir(join(root, "opt"), { recursive: true });
    await copyFile("/bin/true", real);
    await symlink(real, join(dir, "claude"));
    const found = findAgentProgram("claude", undefined, { PATH: `/nonexistent:${dir}` });
    assert.equal(found?.source, "path");
    assert.equal(found.found, join(dir, "claude"));
    assert.equal(found.path, real);
    assert.deepEqual(found.binds, [real]);
  });

  test("a script brings its whole package", async () => {
    const pkg = join(root, "lib", "node_modules", "agent-cli");
    await mkdir(join(pkg, "bin"), { recursive: true });
    await writeFile(join(pkg, "package.json"), "{}");
    await writeFile(join(pkg, "bin", "cli.js"), "#!/usr/bin/env node\n");
    await chmod(join(pkg, "bin", "cli.js"), 0o755);
    assert.deepEqual(programBinds(join(pkg, "bin", "cli.js")), [pkg]);
  });

  test("a program in the system directories needs no bind: the sandbox has them", () => {
    assert.deepEqual(programBinds("/usr/bin/true"), []);
  });

  test("a named program must be an executable file; none falls back to PATH", async () => {
    const notExecutable = join(root, "plain");
    await writeFile(notExecutable, "x");
    assert.equal(findAgentProgram("claude", notExecutable, { PATH: "/usr/bin" }), undefined);
    assert.equal(findAgentProgram("claude", join(root, "missing"), {}), undefined);
    assert.equal(findAgentProgram("command", undefined, { PATH: "/usr/bin" }), undefined);
  });

  test("without one on PATH, warden's own dev dependency is used", () => {
    const found = findAgentProgram("claude", undefined, { PATH: "" });
    if (found === undefined) {
      assert.fail(`no claude in ${DEV_AGENT_BIN}: npm ci installs the pinned dev dependency`);
    }
    assert.equal(found.source, "package");
    assert.ok(found.path.endsWith("/claude.exe") || found.path.endsWith("/cli.js"), found.path);
  });

  test("doctor reports claude usable with its version", async () => {
    const report = await doctorReport();
    const claude = report.agents.find((a) => a.name === "claude");
    assert.equal(claude?.usable, true, claude?.detail);
    assert.match(claude.version ?? "", /\d+\.\d+\.\d+ \(Claude Code\)/);
  });
});

describe(
  "a Claude Code task that cannot run here is refused before it attaches",
  { skip: NO_SANDBOX },
  () => {
    let fx: HostFixture;
    before(async () => {
      fx = await hostFixture();
    });
    after(async () => {
      await fx.cleanup();
    });

    test("without an API key on the host", async () => {
      const { summary } = await createTask(fx.tasks, {
        repo: fx.repo,
        prompt: "x",
        agent: "claude",
      });
      await assert.rejects(executeTask(fx.tasks, summary.id, { env: { PATH: "" } }), {
        code: "NO_API_KEY",
      });
      assert.equal((await fx.tasks.get(summary.id)).state, "created");
    });

    test("when the named program is not there", async () => {
      const { summary } = await createTask(fx.tasks, {
        repo: fx.repo,
        prompt: "x",
        agent: "claude",
        agentProgram: join(root, "no-such-claude"),
      });
      await assert.rejects(
        executeTask(fx.tasks, summary.id, { env: { ANTHROPIC_API_KEY: "k", PATH: "" } }),
        { code: "AGENT_MISSING" },
      );
      assert.equal((await fx.tasks.get(summary.id)).state, "created");
    });
  },
);

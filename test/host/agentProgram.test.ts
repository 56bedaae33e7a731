// Where the host finds an agent's program and what it binds into the sandbox for it (Codex's
// npm launcher replaced by its native program); that those binds are enough to run it in a
// sandbox; and the refusals before an attach when an agent's task cannot run here.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createTask, doctorReport, executeTask, findAgentProgram } from "../../src/host/index.js";
import { codexNativeCandidates } from "../../src/host/codexProgram.js";
import { DEV_AGENT_BIN, programBinds } from "../../src/host/agentProgram.js";
import { homeExposingBind, relayFor } from "../../src/host/preflight.js";
import { BwrapBackend } from "../../src/sandbox/bwrapBackend.js";
import { skipWhen } from "../support/skipWhen.js";
import { TEST_LIMITS } from "../support/testBounds.js";
import { hostFixture, NO_SANDBOX, type HostFixture } from "./fixtures.js";

const BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => existsSync(p));
const NO_BWRAP = skipWhen(
  BWRAP === undefined && "bubblewrap is not installed: apt-get install bubblewrap",
);

/** The native target npm would install here, as codexProgram.ts maps it. */
const TARGET: Record<string, string> = {
  x64: "x86_64-unknown-linux-musl",
  arm64: "aarch64-unknown-linux-musl",
};

async function executableFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  await chmod(path, 0o755);
}

/**
 * Codex as npm lays it out under `modules`: the launcher package, and the native package
 * beside it or nested in it. Returns the launcher and the native layout directory.
 */
async function npmCodex(
  modules: string,
  where: "sibling" | "nested" | "none",
): Promise<{ launcher: string; layout: string }> {
  const codex = join(modules, "@openai", "codex");
  const launcher = join(codex, "bin", "codex.js");
  await executableFile(launcher, "#!/usr/bin/env node\n");
  await writeFile(join(codex, "package.json"), "{}");
  const native =
    where === "nested"
      ? join(codex, "node_modules", "@openai", "codex-linux-x64")
      : join(modules, "@openai", "codex-linux-x64");
  const layout = join(native, "vendor", "x86_64-unknown-linux-musl");
  if (where !== "none") {
    await executableFile(join(layout, "bin", "codex"), "\x7fELF");
    await writeFile(join(layout, "codex-package.json"), "{}");
    await writeFile(join(native, "package.json"), "{}");
  }
  return { launcher, layout };
}

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

  test("doctor reports claude, codex and gemini usable with their versions", async () => {
    const report = await doctorReport();
    const version = (name: string, pattern: RegExp): void => {
      const agent = report.agents.find((a) => a.name === name);
      assert.equal(agent?.usable, true, agent?.detail);
      assert.match(agent.version ?? "", pattern);
    };
    version("claude", /\d+\.\d+\.\d+ \(Claude Code\)/);
    version("codex", /^codex-cli \d+\.\d+\.\d+/);
    version("gemini", /^\d+\.\d+\.\d+/);
    // Codex's version comes from the native program, not from the Node launcher.
    const codex = report.agents.find((a) => a.name === "codex");
    assert.match(codex?.path ?? "", /\/vendor\/[^/]+\/bin\/codex$/);
  });

  test("doctor says whether each agent's API key is here, naming the variable when it is not", async () => {
    const report = await doctorReport({ PATH: process.env.PATH, OPENAI_API_KEY: "sk-o" });
    const agent = (name: string) => report.agents.find((a) => a.name === name);
    assert.equal(agent("codex")?.apiKey, "set");
    assert.equal(agent("claude")?.apiKey, "missing");
    assert.match(
      agent("claude")?.detail ?? "",
      /set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN to run its tasks/,
    );
    assert.equal(agent("gemini")?.apiKey, "missing");
    assert.match(agent("gemini")?.detail ?? "", /GEMINI_API_KEY or GOOGLE_API_KEY/);
    assert.equal(agent("command")?.apiKey, undefined);
  });
});

describe("Codex's npm launcher is replaced by the native program it starts", () => {
  test("with the native package beside the launcher, the native binary runs and its layout is bound", async () => {
    const modules = join(root, "sibling", "node_modules");
    const { launcher, layout } = await npmCodex(modules, "sibling");
    const bin = join(root, "sibling", "bin");
    await mkdir(bin, { recursive: true });
    await symlink(launcher, join(bin, "codex"));
    const found = findAgentProgram("codex", undefined, { PATH: bin }, "x64");
    assert.equal(found?.source, "path");
    assert.equal(found.found, join(bin, "codex"));
    assert.equal(found.path, join(layout, "bin", "codex"));
    assert.deepEqual(found.binds, [layout]);
  });

  test("with the native package nested in the launcher's, that one is used", async () => {
    const modules = join(root, "nested", "node_modules");
    const { launcher, layout } = await npmCodex(modules, "nested");
    const found = findAgentProgram("codex", launcher, {}, "x64");
    assert.equal(found?.source, "settings");
    assert.equal(found.path, join(layout, "bin", "codex"));
    assert.deepEqual(found.binds, [layout]);
  });

  test("a launcher without its native program is refused, saying what is missing", async () => {
    const { launcher } = await npmCodex(join(root, "bare", "node_modules"), "none");
    assert.throws(() => findAgentProgram("codex", launcher, {}, "x64"), {
      code: "AGENT_UNUSABLE",
      message: /@openai\/codex-linux-x64\) is not installed/,
      hint: /npm install -g @openai\/codex/,
    });
    // A machine Codex has no Linux program for is told so, not sent looking for a package.
    assert.throws(() => findAgentProgram("codex", launcher, {}, "ppc64"), {
      code: "AGENT_UNUSABLE",
      message: /no Linux program for ppc64/,
    });
  });

  test("a native binary named directly is bound alone when it has no layout around it", async () => {
    const lone = join(root, "lone", "codex");
    await executableFile(lone, "\x7fELF");
    const found = findAgentProgram("codex", lone, {}, "x64");
    assert.equal(found?.path, lone);
    assert.deepEqual(found.binds, [lone]);
  });

  test("the native program is looked for nested, beside, then inside the launcher's package, per architecture", () => {
    const launcher = "/n/node_modules/@openai/codex/bin/codex.js";
    assert.deepEqual(codexNativeCandidates(launcher, "arm64"), [
      "/n/node_modules/@openai/codex/node_modules/@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex",
      "/n/node_modules/@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex",
      "/n/node_modules/@openai/codex/vendor/aarch64-unknown-linux-musl/bin/codex",
    ]);
    assert.deepEqual(codexNativeCandidates("/n/bin/codex", "x64"), []);
    assert.deepEqual(codexNativeCandidates(launcher, "s390x"), []);
  });

  test("warden's own node_modules: codex resolves to the native binary, gemini to its bundle", () => {
    const target = TARGET[process.arch] ?? "none";
    const codex = findAgentProgram("codex", undefined, { PATH: "" });
    assert.equal(codex?.source, "package", `no codex in ${DEV_AGENT_BIN}`);
    assert.ok(codex.path.endsWith(`/vendor/${target}/bin/codex`), codex.path);
    assert.deepEqual(codex.binds, [dirname(dirname(codex.path))]);
    const gemini = findAgentProgram("gemini", undefined, { PATH: "" });
    assert.equal(gemini?.source, "package", `no gemini in ${DEV_AGENT_BIN}`);
    assert.ok(gemini.path.endsWith("/@google/gemini-cli/bundle/gemini.js"), gemini.path);
    assert.deepEqual(gemini.binds, [dirname(dirname(gemini.path))]);
  });
});

/**
 * How long an agent's `--version` may take in a sandbox before the test counts it as hung: a
 * few seconds on a loaded machine (Gemini loads a bundle of about 90 MB).
 */
const VERSION_MS = 60_000;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe("an agent's binds are all its program needs inside a sandbox", { skip: NO_BWRAP }, () => {
  let dirs: { share: string; workspace: string; elsewhere: string };
  before(async () => {
    const base = join(root, "sandboxed");
    dirs = {
      share: join(base, "share"),
      workspace: join(base, "workspace"),
      elsewhere: join(base, "elsewhere"),
    };
    for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  });

  for (const [agent, pattern] of [
    ["codex", /^codex-cli \d+\.\d+\.\d+/],
    // `#!/usr/bin/env node`: node is found on the sandbox's PATH, in the runtime's directory.
    ["gemini", /^\d+\.\d+\.\d+/],
  ] as const) {
    test(
      `${agent} answers --version in warden's own sandbox with only the system, Node and its binds`,
      { timeout: VERSION_MS },
      async (t) => {
        const program = findAgentProgram(agent, undefined, { PATH: "" });
        assert.ok(program, `no ${agent} in ${DEV_AGENT_BIN}`);
        // Every sandbox binds warden's own node_modules, which holds these agents: the plan is
        // made for a warden whose package is elsewhere, so that only the agent's binds show it.
        const backend = new BwrapBackend({ packageRoot: dirs.elsewhere });
        const sandbox = await backend.start({
          taskId: `agent-version-${agent}`,
          share: dirs.share,
          workspace: dirs.workspace,
          sockets: [],
          // The agent in the runner's place; the flags the backend appends go to the shell.
          runner: { program: "/bin/sh", args: ["-c", 'exec "$0" --version', program.path] },
          readOnlyBinds: program.binds,
          // As Gemini's adapter runs it: one process, not a launcher that starts it again.
          env: { GEMINI_CLI_NO_RELAUNCH: "true" },
          limits: TEST_LIMITS,
        });
        t.after(() => sandbox.stop(0));
        const [stdout, stderr, exit] = await Promise.all([
          readAll(sandbox.stdout),
          readAll(sandbox.stderr),
          sandbox.exit,
        ]);
        assert.equal(exit.code, 0, stderr);
        assert.match(stdout.trim(), pattern);
      },
    );
  }
});

describe("an agent's API key must be on the host", () => {
  test("codex without OPENAI_API_KEY is refused, and the hint names it", () => {
    assert.throws(() => relayFor("codex", { ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "g" }), {
      code: "NO_API_KEY",
      message: /the codex agent needs an API key, and OPENAI_API_KEY is not set here/,
      hint: /^set OPENAI_API_KEY /,
    });
    assert.equal(relayFor("codex", { OPENAI_API_KEY: "o" })?.auth.kind, "bearer");
  });

  test("gemini without GEMINI_API_KEY or GOOGLE_API_KEY is refused, and the hint names it", () => {
    assert.throws(() => relayFor("gemini", { OPENAI_API_KEY: "o" }), {
      code: "NO_API_KEY",
      message: /neither GEMINI_API_KEY nor GOOGLE_API_KEY is set here/,
      hint: /^set GEMINI_API_KEY /,
    });
    assert.equal(relayFor("gemini", { GOOGLE_API_KEY: "g" })?.api, "gemini");
  });

  test("claude still needs an Anthropic key; command takes one when the host has it, and needs none", () => {
    assert.throws(() => relayFor("claude", { OPENAI_API_KEY: "o" }), {
      code: "NO_API_KEY",
      message: /neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set here/,
    });
    assert.equal(relayFor("command", {}), undefined);
    assert.equal(relayFor("command", { ANTHROPIC_API_KEY: "k" })?.api, "anthropic");
    assert.equal(relayFor("command", { OPENAI_API_KEY: "o" }), undefined);
  });
});

describe(
  "an agent's task that cannot run here is refused before it attaches",
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

    for (const [agent, variable] of [
      ["codex", "OPENAI_API_KEY"],
      ["gemini", "GEMINI_API_KEY"],
    ] as const) {
      test(`a ${agent} task without ${variable} on the host`, async () => {
        const { summary } = await createTask(fx.tasks, { repo: fx.repo, prompt: "x", agent });
        await assert.rejects(
          executeTask(fx.tasks, summary.id, { env: { PATH: "", ANTHROPIC_API_KEY: "k" } }),
          { code: "NO_API_KEY", hint: new RegExp(`^set ${variable} `) },
        );
        assert.equal((await fx.tasks.get(summary.id)).state, "created");
      });
    }

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

describe("an agent's program and the home directory", () => {
  test("a program or package inside the home is bound alone, which shows nothing else of it", () => {
    const home = "/home/ada";
    assert.equal(
      homeExposingBind(["/home/ada/.local/share/claude/versions/2.1.332"], home),
      undefined,
    );
    assert.equal(homeExposingBind(["/home/ada/.npm-global/lib/node_modules/pkg"], home), undefined);
    assert.equal(homeExposingBind(["/home/adalbert/bin/agent"], home), undefined);
  });

  test("a bind that is the home or holds it is named, since it would show the whole home", () => {
    const home = "/home/ada";
    assert.equal(homeExposingBind(["/opt/agent", "/home/ada"], home), "/home/ada");
    assert.equal(homeExposingBind(["/home"], home), "/home");
    assert.equal(homeExposingBind(["/"], home), "/");
    assert.equal(homeExposingBind(["/opt/agent"], "/"), undefined);
    assert.equal(homeExposingBind(["/"], "/"), "/");
  });
});

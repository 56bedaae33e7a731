import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  bundleStep,
  commitStep,
  gitArgv,
  gitEnvironment,
  identityOf,
  prepareSteps,
  safetyConfig,
} from "../../src/guest/gitSteps.js";

const identity = { name: "Ada Lovelace", email: "ada@example.com" };

test("the workspace is a clone with the identity in its config, no remote, on the task branch", () => {
  const steps = prepareSteps({ bundle: "/share/input.bundle", workspace: "/ws", identity });
  assert.deepEqual(
    steps.map((step) => step.args),
    [
      [
        "clone",
        "--quiet",
        "--template=",
        "--config",
        "user.name=Ada Lovelace",
        "--config",
        "user.email=ada@example.com",
        "--",
        "/share/input.bundle",
        "/ws",
      ],
      ["-C", "/ws", "remote", "remove", "origin"],
      ["-C", "/ws", "switch", "--quiet", "-C", "warden/task"],
    ],
  );
});

test("every git call disables hooks and the file system monitor before its own arguments", () => {
  const argv = gitArgv("/ws", commitStep("/ws"));
  const config = argv.slice(0, safetyConfig("/ws").length);
  assert.deepEqual(config, safetyConfig("/ws"));
  for (const entry of ["core.hooksPath=/dev/null", "core.fsmonitor=false"]) {
    assert.equal(config[config.indexOf(entry) - 1], "-c", `${entry} is passed with -c`);
  }
  assert.deepEqual(argv.slice(config.length, config.length + 3), ["-C", "/ws", "commit"]);
  assert.ok(argv.includes("--no-verify"), "the leftovers commit skips hooks twice over");
});

test("a task with no identity commits as warden <warden@localhost>", () => {
  assert.deepEqual(identityOf({ agent: "command", command: ["true"] }), {
    name: "warden",
    email: "warden@localhost",
  });
  assert.deepEqual(
    identityOf({ agent: "command", command: ["true"], gitName: "A", gitEmail: "a@b" }),
    { name: "A", email: "a@b" },
  );
});

test("the bundle carries the task branch from the base on, and nothing else", () => {
  const base = "a".repeat(40);
  assert.deepEqual(bundleStep("/ws", base, "/scratch/changes.bundle").args, [
    "-C",
    "/ws",
    "bundle",
    "create",
    "--quiet",
    "/scratch/changes.bundle",
    "refs/heads/warden/task",
    `^${base}`,
  ]);
});

test("git's environment ignores system and global config and never prompts", () => {
  const env = gitEnvironment("/usr/bin", "/scratch/home");
  assert.equal(env.GIT_CONFIG_NOSYSTEM, "1");
  assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null");
  assert.equal(env.GIT_TERMINAL_PROMPT, "0");
  for (const inherited of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT"]) {
    assert.equal(env[inherited], undefined, `${inherited} is never set`);
  }
});

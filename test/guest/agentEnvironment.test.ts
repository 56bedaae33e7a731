import { strict as assert } from "node:assert";
import { test } from "node:test";
import { agentEnvironment, RUN_MARKER_VAR } from "../../src/guest/agentEnvironment.js";

const base = {
  pass: [] as string[],
  adapter: {},
  settings: { agent: "command" as const, command: ["true"] },
  egress: {},
  metadataUrl: "http://127.0.0.1:4000",
  tmpdir: "/scratch/tmp",
  marker: "m4rk3r",
  fallbackHome: "/home/fallback",
};

test("the agent gets a minimal environment, not the runner's", () => {
  const env = agentEnvironment({
    ...base,
    runner: { PATH: "/bin", HOME: "/root", SECRET_TOKEN: "x", GIT_DIR: "/elsewhere", LANG: "en" },
  });
  assert.deepEqual(env, {
    PATH: "/bin",
    HOME: "/root",
    LANG: "en",
    TMPDIR: "/scratch/tmp",
    WARDEN_METADATA_URL: "http://127.0.0.1:4000",
    [RUN_MARKER_VAR]: "m4rk3r",
  });
});

test("named variables pass through and the protocol's variables cannot be overridden", () => {
  const env = agentEnvironment({
    ...base,
    runner: { HTTPS_PROXY: "http://127.0.0.1:3128", WARDEN_TASK_ID: "forged" },
    pass: ["HTTPS_PROXY", "WARDEN_TASK_ID", "WARDEN_METADATA_URL", RUN_MARKER_VAR],
    adapter: { AGENT_MODE: "headless", WARDEN_HOP: "7" },
    settings: {
      agent: "command",
      command: ["true"],
      taskId: "01jd8x3y4z5a6b7c8d9e0f1g2h",
      parentTaskId: "01jd8x3y4z5a6b7c8d9e0f1g2j",
      hop: 2,
    },
  });
  assert.equal(env.HTTPS_PROXY, "http://127.0.0.1:3128");
  assert.equal(env.AGENT_MODE, "headless");
  assert.equal(env.WARDEN_TASK_ID, "01jd8x3y4z5a6b7c8d9e0f1g2h");
  assert.equal(env.WARDEN_PARENT_TASK_ID, "01jd8x3y4z5a6b7c8d9e0f1g2j");
  assert.equal(env.WARDEN_HOP, "2");
  assert.equal(env.WARDEN_METADATA_URL, "http://127.0.0.1:4000");
  assert.equal(env[RUN_MARKER_VAR], "m4rk3r");
  assert.equal(env.PATH, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  assert.equal(env.HOME, "/home/fallback");
  assert.equal(env.LANG, "C.UTF-8");
});

test("hop 0 and a missing parent leave their variables out", () => {
  const env = agentEnvironment({
    ...base,
    runner: { WARDEN_HOP: "3", WARDEN_PARENT_TASK_ID: "x", WARDEN_DATA_DIR: "/data" },
    pass: ["WARDEN_HOP", "WARDEN_PARENT_TASK_ID", "WARDEN_DATA_DIR"],
    settings: { agent: "command", command: ["true"], hop: 0 },
  });
  assert.equal(env.WARDEN_HOP, undefined);
  assert.equal(env.WARDEN_PARENT_TASK_ID, undefined);
  assert.equal(env.WARDEN_TASK_ID, undefined);
  assert.equal(env.WARDEN_DATA_DIR, undefined);
});

test("the host's variables reach the agent, and the egress ports in use win over them", () => {
  const env = agentEnvironment({
    ...base,
    runner: {},
    settings: {
      agent: "command",
      command: ["true"],
      env: { ANTHROPIC_API_KEY: "placeholder", HTTPS_PROXY: "http://127.0.0.1:3128", FOO: "bar" },
    },
    egress: { HTTPS_PROXY: "http://127.0.0.1:40001", ANTHROPIC_BASE_URL: "http://127.0.0.1:40002" },
  });
  assert.equal(env.ANTHROPIC_API_KEY, "placeholder");
  assert.equal(env.FOO, "bar");
  assert.equal(env.HTTPS_PROXY, "http://127.0.0.1:40001");
  assert.equal(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:40002");
});

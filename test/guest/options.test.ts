import { strict as assert } from "node:assert";
import { test } from "node:test";
import { GUEST_CHANNEL_LIMITS } from "../../src/guest/limits.js";
import { UsageError } from "../../src/guest/errors.js";
import { DEFAULT_KILL_GRACE_MS, parseOptions, type GuestOptions } from "../../src/guest/options.js";

function run(argv: string[], env: Record<string, string> = {}): GuestOptions {
  const invocation = parseOptions(argv, env);
  if (invocation.kind !== "help") return invocation.options;
  throw new Error(`${argv.join(" ")} asked for help`);
}

test("with nothing given the runner uses /share, /workspace and a fresh scratch dir", () => {
  assert.deepEqual(run([]), {
    share: "/share",
    workspace: "/workspace",
    scratch: undefined,
    metadataPort: 0,
    ownPidNamespace: false,
    killGraceMs: DEFAULT_KILL_GRACE_MS,
    agentEnv: [],
    sockets: undefined,
    egressPorts: "fixed",
    channelTimeoutMs: GUEST_CHANNEL_LIMITS.requestMs,
  });
});

test("the channel's timeout comes from a flag or the environment, and must be a positive number", () => {
  assert.equal(run([], { WARDEN_GUEST_CHANNEL_TIMEOUT_MS: "1500" }).channelTimeoutMs, 1500);
  assert.equal(
    run(["--channel-timeout-ms", "250"], { WARDEN_GUEST_CHANNEL_TIMEOUT_MS: "1500" })
      .channelTimeoutMs,
    250,
  );
  assert.throws(() => run(["--channel-timeout-ms", "0"]), UsageError);
  assert.throws(() => run(["--channel-timeout-ms", "soon"]), UsageError);
  assert.throws(() => run(["--channel-timeout-ms", String(60 * 60_000)]), UsageError);
});

test("the egress sockets and port mode come from a flag or the environment", () => {
  const fromEnv = run([], {
    WARDEN_GUEST_SOCKETS: "/run/warden",
    WARDEN_GUEST_EGRESS_PORTS: "any",
  });
  assert.equal(fromEnv.sockets, "/run/warden");
  assert.equal(fromEnv.egressPorts, "any");
  const fromFlags = run(["--sockets", "/elsewhere", "--egress-ports", "fixed"], {
    WARDEN_GUEST_EGRESS_PORTS: "any",
  });
  assert.equal(fromFlags.sockets, "/elsewhere");
  assert.equal(fromFlags.egressPorts, "fixed");
  assert.throws(() => run(["--egress-ports", "some"]), /fixed or any/);
});

test("the environment places the share, and a flag wins over it", () => {
  const env = {
    WARDEN_GUEST_SHARE: "/env/share",
    WARDEN_GUEST_WORKSPACE: "/env/ws",
    WARDEN_GUEST_SCRATCH: "/env/scratch",
    WARDEN_GUEST_OWN_PID_NAMESPACE: "1",
    WARDEN_GUEST_AGENT_ENV: "HTTPS_PROXY,ANTHROPIC_BASE_URL",
  };
  const fromEnv = run([], env);
  assert.equal(fromEnv.share, "/env/share");
  assert.equal(fromEnv.workspace, "/env/ws");
  assert.equal(fromEnv.scratch, "/env/scratch");
  assert.equal(fromEnv.ownPidNamespace, true);
  assert.deepEqual(fromEnv.agentEnv, ["HTTPS_PROXY", "ANTHROPIC_BASE_URL"]);
  const flags = run(["--share", "/s", "--workspace=/w", "--agent-env", "NO_PROXY"], env);
  assert.equal(flags.share, "/s");
  assert.equal(flags.workspace, "/w");
  assert.deepEqual(flags.agentEnv, ["HTTPS_PROXY", "ANTHROPIC_BASE_URL", "NO_PROXY"]);
});

test("numbers are whole and bounded", () => {
  assert.equal(run(["--kill-grace-ms", "250", "--metadata-port", "8080"]).killGraceMs, 250);
  for (const argv of [
    ["--kill-grace-ms", "-1"],
    ["--kill-grace-ms", "1.5"],
    ["--kill-grace-ms", "99999999999"],
    ["--metadata-port", "65536"],
  ]) {
    assert.throws(() => parseOptions(argv, {}), UsageError, argv.join(" "));
  }
});

test("an unknown flag, a positional argument or a bad variable name is a usage error", () => {
  for (const argv of [["--shared", "/s"], ["extra"], ["--agent-env", "NOT-A-NAME"]]) {
    assert.throws(
      () => parseOptions(argv, {}),
      (error: unknown) => error instanceof UsageError && error.code === "USAGE",
      argv.join(" "),
    );
  }
  assert.throws(() => parseOptions([], { WARDEN_GUEST_OWN_PID_NAMESPACE: "yes" }), UsageError);
});

test("--help asks for the help text", () => {
  assert.deepEqual(parseOptions(["--help"], {}), { kind: "help" });
  assert.deepEqual(parseOptions(["-h"], {}), { kind: "help" });
});

test("the hidden --trace asks the runner to time its steps; without it nothing is timed", () => {
  assert.equal(run(["--trace"]).tracePhases, true);
  assert.equal(run([]).tracePhases, undefined);
});

// The real Claude Code, Codex CLI and Gemini CLI, each pointed at a relay whose spending gate
// refuses: each must stop after its first model request, showing the relay's message, rather
// than retry. This is what chose each API's refusal status (RELAY_APIS[api].spendRefusal); an
// agent upgrade that starts retrying it fails here. The agents run outside any sandbox: only
// their reaction to the relay's answer is under test.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { startRelay, type ApiKind } from "../../src/egress/index.js";
import { skipWhen } from "../support/skipWhen.js";
import { forwardPorts } from "../../src/guest/forwardPorts.js";
import { closeServer, listen, tempDir } from "./localPeers.js";
import { rawUpstream, recordingGate } from "./meteredUpstream.js";

const BIN = (name: string): string =>
  fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

/** Past this an agent is taken to be retrying: each stops within a few seconds otherwise. */
const AGENT_MS = 60_000;

interface AgentCase {
  readonly agent: "claude" | "codex" | "gemini";
  readonly api: ApiKind;
  readonly keys: { apiKey: string; placeholderKey: string };
  /**
   * The model requests a run makes before its first answer, each refused once: Gemini CLI's
   * model router asks a small model which model to use, then asks that model.
   */
  readonly requests: number;
  /** The argv and environment that make one headless run against the relay at `base`. */
  launch(base: string, home: string): Promise<{ argv: string[]; env: Record<string, string> }>;
}

const CASES: readonly AgentCase[] = [
  {
    agent: "claude",
    api: "anthropic",
    requests: 1,
    keys: {
      apiKey: "sk-ant-real-refusal-0123456789",
      placeholderKey: "sk-ant-warden-placeholder-r",
    },
    launch: (base) =>
      Promise.resolve({
        argv: [BIN("claude"), "-p", "say hi", "--output-format", "stream-json", "--verbose"],
        env: {
          ANTHROPIC_BASE_URL: base,
          ANTHROPIC_API_KEY: "sk-ant-warden-placeholder-r",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
      }),
  },
  {
    agent: "codex",
    api: "openai",
    requests: 1,
    keys: { apiKey: "sk-real-refusal-0123456789", placeholderKey: "sk-warden-placeholder-r" },
    launch: async (base, home) => {
      await mkdir(join(home, ".codex"));
      const provider = "model_providers.relay";
      return {
        argv: [
          BIN("codex"),
          "exec",
          "--json",
          "--skip-git-repo-check",
          "--dangerously-bypass-approvals-and-sandbox",
          '--config=model_provider="relay"',
          `--config=${provider}.name="relay"`,
          `--config=${provider}.base_url="${base}"`,
          `--config=${provider}.env_key="OPENAI_API_KEY"`,
          `--config=${provider}.wire_api="responses"`,
          "--",
          "say hi",
        ],
        env: { OPENAI_API_KEY: "sk-warden-placeholder-r", CODEX_HOME: join(home, ".codex") },
      };
    },
  },
  {
    agent: "gemini",
    api: "gemini",
    requests: 2,
    keys: { apiKey: "AIza-real-refusal-0123456789", placeholderKey: "warden-placeholder-r" },
    launch: async (base, home) => {
      await mkdir(join(home, ".gemini"));
      await writeFile(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
      );
      return {
        argv: [
          BIN("gemini"),
          "--output-format=stream-json",
          "--approval-mode=yolo",
          "--skip-trust",
          "-p",
          "say hi",
        ],
        env: {
          GEMINI_API_KEY: "warden-placeholder-r",
          GOOGLE_GEMINI_BASE_URL: base,
          GEMINI_CLI_NO_RELAUNCH: "true",
        },
      };
    },
  },
];

describe("each agent stops at the relay's spending refusal without retrying", () => {
  for (const c of CASES) {
    test(
      `${c.agent} sends each model request once, shows the refusal and exits`,
      {
        skip: skipWhen(existsSync(BIN(c.agent)) ? false : `${c.agent} is not installed`),
        timeout: AGENT_MS + 10_000,
      },
      async () => {
        const dir = await tempDir();
        const upstream = rawUpstream([
          { contentType: "application/json", chunks: [Buffer.from("{}")] },
        ]);
        const port = await listen(upstream.server, 0);
        const gate = recordingGate(0);
        const socketPath = join(dir.path, "relay.sock");
        const relay = await startRelay({
          api: c.api,
          ...c.keys,
          socketPath,
          upstream: `http://127.0.0.1:${port}`,
          spend: gate,
        });
        // The agent reaches the relay as it does in the sandbox: a loopback port forwarded to
        // the relay's socket.
        const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
        const base = `http://127.0.0.1:${forward.ports[0] ?? 0}`;
        try {
          const home = join(dir.path, "home");
          await mkdir(home);
          const { argv, env } = await c.launch(base, home);
          const child = spawn(argv[0] ?? "", argv.slice(1), {
            cwd: home,
            env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
            stdio: ["ignore", "pipe", "pipe"],
          });
          let out = "";
          child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
          child.stderr.resume();
          const killer = setTimeout(() => child.kill("SIGKILL"), AGENT_MS);
          const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
          clearTimeout(killer);
          assert.equal(signal, null, `${c.agent} was still retrying after ${AGENT_MS} ms`);
          assert.notEqual(code, 0);
          assert.equal(gate.checks, c.requests, `${c.agent} sent ${gate.checks} model requests`);
          assert.deepEqual(upstream.paths, []);
          assert.match(out, /spending cap of \$0 is reached/);
        } finally {
          await forward.close();
          await relay.close();
          upstream.server.closeAllConnections();
          await closeServer(upstream.server);
          await dir.remove();
        }
      },
    );
  }
});

// What the whole-system tests of Codex CLI and Gemini CLI share: each agent's real CLI, a scripted
// API of its provider on 127.0.0.1 that speaks a script written in words both agents' scripts can
// be made from, the key the host holds and where the agent is shown it.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "../support/recordedRequest.js";
import { startScriptedGemini, type ScriptedGeminiTurn } from "../support/scriptedGemini.js";
import { startScriptedOpenAI, type ScriptedResponse } from "../support/scriptedOpenAI.js";
import type { SkipReason } from "../support/skipWhen.js";
import { skipWhen } from "../support/skipWhen.js";
import { after, before } from "node:test";
import {
  cleanEnv,
  NO_SYSTEM,
  runCli,
  workspace,
  type CliResult,
  type Workspace,
} from "./fixtures.js";

/**
 * A usage limit that holds from the first request it refuses until `waitMs` after it: the time
 * it resets is fixed then, and every request before it is refused.
 */
export interface UsageLimitClock {
  /** When the limit resets (fixed by the first refusal); 0 before it. */
  resetAt(): number;
  /** The reset, fixing it now when no request was refused yet. */
  reset(): number;
  /** Until when requests are refused: for ever before the first refusal. */
  until(): number;
}

export function usageLimitClock(waitMs: number): UsageLimitClock {
  let resetAt = 0;
  return {
    resetAt: () => resetAt,
    reset: () => {
      if (resetAt === 0) resetAt = Date.now() + waitMs;
      return resetAt;
    },
    until: () => (resetAt === 0 ? Number.MAX_SAFE_INTEGER : resetAt),
  };
}

/** One step of a scripted model, in words both agents' scripts can be made from. */
export type Step =
  | { readonly kind: "shell"; readonly command: string }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "error"; readonly status: number; readonly message: string }
  /** The model "thinks" until the agent goes away. */
  | { readonly kind: "hold" }
  /** A 429 with the provider's own way of saying when the usage limit resets. */
  | { readonly kind: "limit"; readonly clock: UsageLimitClock };

/** A scripted API as the tests need it, whichever agent talks to it. */
export interface Api {
  readonly requests: readonly RecordedRequest[];
  /** The bodies of the conversation requests, in order. */
  bodies(): unknown[];
  /** The user texts of each conversation request, in order. */
  userTexts(): string[][];
  close(): Promise<void>;
}

/** What differs between the agents. */
export interface AgentCase {
  readonly agent: "codex" | "gemini";
  readonly program: string;
  /** The host's key, made up for this test process. */
  readonly realKey: string;
  /** The header and value the API must get on every request. */
  readonly keyHeader: (key: string) => [string, string];
  /** The placeholder the sandbox holds, and where. */
  readonly placeholder: RegExp;
  /** How the usage-limit event names where the reset came from. */
  readonly limitSource: string;
  start(steps: readonly Step[]): Promise<{ api: Api; env: Record<string, string> }>;
}

export const BIN = (name: string): string =>
  fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

function textsOf(items: unknown, role: string, field: "content" | "parts"): string[] {
  if (!Array.isArray(items)) return [];
  const texts: string[] = [];
  for (const item of items as Record<string, unknown>[]) {
    if (item.role !== role || !Array.isArray(item[field])) continue;
    for (const part of item[field] as { text?: unknown }[]) {
      if (typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts;
}

/** OpenAI's usage limit: the requests' reset as a duration, and none of them left. */
function openAILimit(clock: UsageLimitClock): ScriptedResponse {
  return {
    kind: "error",
    status: 429,
    message: "You exceeded your current quota.",
    until: () => clock.until(),
    headers: () => ({
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": `${Math.max(0, clock.reset() - Date.now())}ms`,
    }),
  };
}

/** Gemini's usage limit: RESOURCE_EXHAUSTED with a RetryInfo that says how long to wait. */
function geminiLimit(clock: UsageLimitClock): ScriptedGeminiTurn {
  return {
    kind: "error",
    status: 429,
    message: "Resource has been exhausted (e.g. check quota).",
    until: () => clock.until(),
    details: () => [
      {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        retryDelay: `${Math.max(0, Math.ceil((clock.reset() - Date.now()) / 1000))}s`,
      },
    ],
  };
}

export const CODEX: AgentCase = {
  agent: "codex",
  program: BIN("codex"),
  realKey: `sk-proj-e2e-${randomBytes(16).toString("hex")}`,
  keyHeader: (key) => ["authorization", `Bearer ${key}`],
  placeholder: /OPENAI_API_KEY=sk-warden-placeholder-[0-9a-f]+/,
  limitSource: "x-ratelimit-reset-requests",
  async start(steps) {
    const api = await startScriptedOpenAI(
      steps.map((step): ScriptedResponse => {
        if (step.kind === "shell") return { kind: "command", cmd: step.command };
        if (step.kind === "limit") return openAILimit(step.clock);
        return step;
      }),
    );
    return {
      api: {
        requests: api.requests,
        bodies: () => api.responseBodies(),
        userTexts: () =>
          api
            .responseBodies()
            .map((body) => textsOf((body as { input?: unknown }).input, "user", "content")),
        close: () => api.close(),
      },
      env: { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: CODEX.realKey },
    };
  },
};

export const GEMINI: AgentCase = {
  agent: "gemini",
  program: BIN("gemini"),
  realKey: `AIza-e2e-${randomBytes(16).toString("hex")}`,
  keyHeader: (key) => ["x-goog-api-key", key],
  placeholder: /GEMINI_API_KEY=warden-placeholder-[0-9a-f]+/,
  limitSource: "retryDelay",
  async start(steps) {
    const api = await startScriptedGemini(
      steps.map((step): ScriptedGeminiTurn => {
        if (step.kind === "shell") {
          return {
            kind: "call",
            name: "run_shell_command",
            args: { command: step.command, description: "run it" },
          };
        }
        if (step.kind === "limit") return geminiLimit(step.clock);
        return step;
      }),
    );
    return {
      api: {
        requests: api.requests,
        bodies: () => api.turnBodies(),
        userTexts: () =>
          api
            .turnBodies()
            .map((body) => textsOf((body as { contents?: unknown }).contents, "user", "parts")),
        close: () => api.close(),
      },
      env: { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: GEMINI.realKey },
    };
  },
};

/** Why an agent's whole-system tests cannot run here, or undefined when they can. */
export function agentSkip(agentCase: AgentCase): SkipReason | undefined {
  return (
    NO_SYSTEM ??
    (skipWhen(
      existsSync(agentCase.program)
        ? false
        : `no ${agentCase.agent} program at ${agentCase.program}: npm ci installs it`,
    ) ||
      undefined)
  );
}

/** A test's scripted API, and the warden CLI with that API's environment. */
export interface Scripted {
  readonly api: Api;
  /** Any verb; `extra` adds to the environment. */
  readonly warden: (args: string[], extra?: Record<string, string>) => Promise<CliResult>;
  /** `run --agent <agent> --repo <the suite's repo> --prompt <prompt> ...args`. */
  readonly run: (prompt: string, args?: string[]) => Promise<CliResult>;
}

/** What the tests of one agent's describe share: a workspace, and each test's scripted API. */
export interface AgentSuite {
  /** The describe's workspace, made before its first test and removed after its last. */
  readonly ws: Workspace;
  /** Starts a scripted API for the running test; every one is closed after the describe. */
  scripted(steps: readonly Step[]): Promise<Scripted>;
}

/** Registers the hooks of an AgentSuite in the describe it is called in. */
export function agentSuite(agentCase: AgentCase): AgentSuite {
  let ws: Workspace | undefined;
  const apis: Api[] = [];
  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await Promise.all(apis.map((api) => api.close()));
    await ws?.cleanup();
  });
  const suite: AgentSuite = {
    get ws(): Workspace {
      if (ws === undefined) throw new Error("the suite's workspace is made before its first test");
      return ws;
    },
    async scripted(steps) {
      const started = await agentCase.start(steps);
      apis.push(started.api);
      const env = cleanEnv(started.env);
      const { dataDir, repo } = suite.ws;
      const warden = (args: string[], extra: Record<string, string> = {}) =>
        runCli(dataDir, args, { env: { ...env, ...extra } });
      return {
        api: started.api,
        warden,
        run: (prompt, args = []) =>
          warden(["run", "--agent", agentCase.agent, "--repo", repo, "--prompt", prompt, ...args]),
      };
    },
  };
  return suite;
}

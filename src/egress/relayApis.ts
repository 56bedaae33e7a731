// The APIs the relay speaks: for each, the host variables its upstream and credential come
// from, how the credential is sent, what the sandbox holds instead, the paths the relay
// forwards, and the shape of an error body the API's own clients read. A new API is one entry
// here.
import type { RelayAuth } from "./relayHeaders.js";

/** The APIs the relay can stand in front of. */
export const API_KINDS = ["anthropic", "openai", "gemini"] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** A host variable that holds a credential, and how the relay sends what it holds. */
export interface ApiKeyVariable {
  readonly variable: string;
  readonly auth: RelayAuth["kind"];
}

/**
 * One segment of a route: a literal, or a pattern that must match the whole segment with the
 * name docs and hints show for it.
 */
export type RouteSegment = string | { readonly shown: string; readonly pattern: RegExp };

/** A request the relay forwards: a method and the path's segments below the relay's root. */
export interface RelayRoute {
  readonly method: "GET" | "POST";
  readonly segments: readonly RouteSegment[];
  /**
   * A request that costs money: the spending gate is asked before it goes upstream, and its
   * answer's usage is metered.
   */
  readonly metered?: true;
}

/**
 * A model name as a path segment. It starts with a letter or digit, so it is never a dot
 * segment, and has no `%`, `/` or `:` a server could read as something else.
 */
const MODEL_NAME = "[A-Za-z0-9][A-Za-z0-9._-]*";
const MODEL: RouteSegment = { shown: "{model}", pattern: new RegExp(`^${MODEL_NAME}$`) };

/** Gemini's `{model}:method` segment. */
function modelCall(method: string): RouteSegment {
  return { shown: `{model}:${method}`, pattern: new RegExp(`^${MODEL_NAME}:${method}$`) };
}

/**
 * Gemini's routes under one API version: the generateContent family Gemini CLI calls through
 * Google's SDK, and the model listing.
 */
function geminiRoutes(version: string): RelayRoute[] {
  const calls = [
    "generateContent",
    "streamGenerateContent",
    "countTokens",
    "embedContent",
    "batchEmbedContents",
  ];
  return [
    ...calls.map((call) => ({
      method: "POST" as const,
      segments: [version, "models", modelCall(call)],
      // Only counting tokens is free; embeddings cost little, and report no usage to meter,
      // but are still refused once the cap is reached.
      ...(call === "countTokens" ? {} : { metered: true as const }),
    })),
    { method: "GET", segments: [version, "models"] },
    { method: "GET", segments: [version, "models", MODEL] },
  ];
}

export interface RelayApi {
  /**
   * The variable that names the API's base URL: on the host, the relay's upstream; inside the
   * sandbox, the relay itself.
   */
  readonly baseVariable: string;
  /** The upstream when the host does not set baseVariable. */
  readonly defaultUpstream: string;
  /** The host variables a credential is read from, in order: the first one set wins. */
  readonly keys: readonly [ApiKeyVariable, ...ApiKeyVariable[]];
  /** The variable inside the sandbox that holds the placeholder key. */
  readonly placeholderVariable: string;
  /** The start of a placeholder key: the shape of the API's keys, so a client takes it. */
  readonly placeholderPrefix: string;
  /**
   * The only requests the relay forwards, as the sandbox sends them (below the relay's root):
   * the model API the agent needs, and the model listing, which costs nothing and shows no
   * more than model names. Everything else the key could reach (files, batches, admin,
   * fine-tuning) is refused, so the key cannot be used for it from inside the sandbox.
   */
  readonly routes: readonly RelayRoute[];
  /**
   * The request `warden doctor --check-api` makes, below the upstream's path: the model listing,
   * which needs the key and costs nothing. With the headers the API needs beside the key.
   */
  readonly check: { readonly path: string; readonly headers: Readonly<Record<string, string>> };
  /**
   * The answer to a metered request once the spending gate refuses: a status and error type the
   * API's own agent shows and does not retry (docs/egress.md, "Spending caps", says how each
   * was found). `googleStatus` is the status name of Google's error shape.
   */
  readonly spendRefusal: {
    readonly status: number;
    readonly type: string;
    readonly googleStatus?: string;
  };
}

export const RELAY_APIS: Readonly<Record<ApiKind, RelayApi>> = {
  anthropic: {
    baseVariable: "ANTHROPIC_BASE_URL",
    defaultUpstream: "https://api.anthropic.com",
    keys: [
      { variable: "ANTHROPIC_API_KEY", auth: "x-api-key" },
      // A gateway's token, sent as a bearer token (Claude Code's own use of the variable).
      { variable: "ANTHROPIC_AUTH_TOKEN", auth: "bearer" },
    ],
    placeholderVariable: "ANTHROPIC_API_KEY",
    placeholderPrefix: "sk-ant-warden-placeholder-",
    // Claude Code sends both POSTs with `?beta=true`; the query is not part of the route.
    routes: [
      { method: "POST", segments: ["v1", "messages"], metered: true },
      { method: "POST", segments: ["v1", "messages", "count_tokens"] },
      { method: "GET", segments: ["v1", "models"] },
      { method: "GET", segments: ["v1", "models", MODEL] },
    ],
    check: { path: "/v1/models?limit=1", headers: { "anthropic-version": "2023-06-01" } },
    // Claude Code stops at a 402 at once; a 400 it sends again up to five times with fewer
    // beta headers, and a 429 or 5xx it retries for minutes.
    spendRefusal: { status: 402, type: "billing_error" },
  },
  openai: {
    baseVariable: "OPENAI_BASE_URL",
    // OpenAI's base URLs carry the version; the sandbox is given the relay's root, so the
    // upstream's path supplies it.
    defaultUpstream: "https://api.openai.com/v1",
    keys: [{ variable: "OPENAI_API_KEY", auth: "bearer" }],
    placeholderVariable: "OPENAI_API_KEY",
    placeholderPrefix: "sk-warden-placeholder-",
    // Below the upstream's /v1: Codex posts to /responses, compacts a long session through
    // /responses/compact, and may list the models.
    routes: [
      { method: "POST", segments: ["responses"], metered: true },
      { method: "POST", segments: ["responses", "compact"], metered: true },
      { method: "GET", segments: ["models"] },
      { method: "GET", segments: ["models", MODEL] },
    ],
    check: { path: "/models", headers: {} },
    // Codex stops at a 400 at once and shows its message; it retries a 402 or 403 five times,
    // and shows its own words instead of the message for a 429 insufficient_quota.
    spendRefusal: { status: 400, type: "invalid_request_error" },
  },
  gemini: {
    baseVariable: "GOOGLE_GEMINI_BASE_URL",
    defaultUpstream: "https://generativelanguage.googleapis.com",
    keys: [
      { variable: "GEMINI_API_KEY", auth: "x-goog-api-key" },
      // Google's generic variable, which Gemini's own clients also read.
      { variable: "GOOGLE_API_KEY", auth: "x-goog-api-key" },
    ],
    placeholderVariable: "GEMINI_API_KEY",
    placeholderPrefix: "warden-placeholder-",
    // Google's SDK speaks v1beta unless GOOGLE_GENAI_API_VERSION names another version; v1
    // has the same calls.
    routes: [...geminiRoutes("v1beta"), ...geminiRoutes("v1")],
    check: { path: "/v1beta/models?pageSize=1", headers: {} },
    // Gemini CLI stops at any 4xx but 429, which it retries for minutes. Google answers a
    // request its project may not make now with FAILED_PRECONDITION.
    spendRefusal: {
      status: 400,
      type: "invalid_request_error",
      googleStatus: "FAILED_PRECONDITION",
    },
  },
};

/** The variable inside the sandbox that holds each API's placeholder key. */
export const PLACEHOLDER_VARIABLES: Readonly<Record<ApiKind, string>> = {
  anthropic: RELAY_APIS.anthropic.placeholderVariable,
  openai: RELAY_APIS.openai.placeholderVariable,
  gemini: RELAY_APIS.gemini.placeholderVariable,
};

/** The host variables that may hold the API's credential, in the order they are read. */
export function keyVariables(api: ApiKind): string[] {
  return RELAY_APIS[api].keys.map((key) => key.variable);
}

/** A route as docs and hints show it: `POST /v1/messages`. */
export function routeText(route: RelayRoute): string {
  const path = route.segments.map((s) => (typeof s === "string" ? s : s.shown)).join("/");
  return `${route.method} /${path}`;
}

/** The credential variables in words: `A`, `A or B`, `A, B or C`. */
export function keyVariablesText(api: ApiKind): string {
  const names = keyVariables(api);
  const last = names.pop() ?? "";
  return names.length === 0 ? last : `${names.join(", ")} or ${last}`;
}

/** Google's status names for the HTTP statuses the relay answers with itself. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  413: "INVALID_ARGUMENT",
  502: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * The body of an answer of the relay's own, in the API's error shape so the agent shows its
 * message plainly. `type` is the Anthropic and OpenAI error type. Pure.
 */
export function relayErrorBody(
  api: ApiKind,
  status: number,
  type: string,
  message: string,
  googleStatus?: string,
): unknown {
  const text = `warden relay: ${message}`;
  switch (api) {
    case "anthropic":
      return { type: "error", error: { type, message: text } };
    case "openai":
      return { error: { message: text, type, param: null, code: null } };
    case "gemini":
      return {
        error: {
          code: status,
          message: text,
          status: googleStatus ?? GOOGLE_STATUS[status] ?? "UNKNOWN",
        },
      };
  }
}

// The APIs the relay speaks: for each, the host variables its upstream and credential come
// from, how the credential is sent, what the sandbox holds instead, and the shape of an error
// body the API's own clients read. A new API is one entry here.
import type { RelayAuth } from "./relayHeaders.js";

/** The APIs the relay can stand in front of. */
export const API_KINDS = ["anthropic", "openai", "gemini"] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** A host variable that holds a credential, and how the relay sends what it holds. */
export interface ApiKeyVariable {
  readonly variable: string;
  readonly auth: RelayAuth["kind"];
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
  },
  openai: {
    baseVariable: "OPENAI_BASE_URL",
    // OpenAI's base URLs carry the version; the sandbox is given the relay's root, so the
    // upstream's path supplies it.
    defaultUpstream: "https://api.openai.com/v1",
    keys: [{ variable: "OPENAI_API_KEY", auth: "bearer" }],
    placeholderVariable: "OPENAI_API_KEY",
    placeholderPrefix: "sk-warden-placeholder-",
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

/** The credential variables in words: `A`, `A or B`, `A, B or C`. */
export function keyVariablesText(api: ApiKind): string {
  const names = keyVariables(api);
  const last = names.pop() ?? "";
  return names.length === 0 ? last : `${names.join(", ")} or ${last}`;
}

/** Google's status names for the HTTP statuses the relay answers with itself. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
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
): unknown {
  const text = `warden relay: ${message}`;
  switch (api) {
    case "anthropic":
      return { type: "error", error: { type, message: text } };
    case "openai":
      return { error: { message: text, type, param: null, code: null } };
    case "gemini":
      return { error: { code: status, message: text, status: GOOGLE_STATUS[status] ?? "UNKNOWN" } };
  }
}

// What Gemini CLI's exit codes mean (0.61, from its FatalError classes and its headless error
// handler). Two things make them more than a table:
// - an error that carries no code of its own exits with the error's `code` or HTTP `status`,
//   and a process exit code is only 8 bits: an API error's HTTP status arrives mod 256
//   (400 → 144, 429 → 173, 500 → 244, 503 → 247);
// - a process a signal ended reads as 128 + the signal's number (SIGINT 130, SIGTERM 143).
// 144–255 is read as an HTTP status from 400 to 511; statuses from 512 on (rare, and none of
// Google's) would alias onto small codes and cannot be told apart from them.

/** What an exit code says, in kinds warden acts on. */
export type GeminiExitKind =
  | "ok"
  | "error"
  | "auth"
  | "input"
  | "sandbox"
  | "config"
  | "turn_limit"
  | "tool"
  | "untrusted_workspace"
  | "cancelled"
  | "signal"
  | "http"
  | "unknown";

export interface GeminiExit {
  readonly code: number;
  readonly kind: GeminiExitKind;
  /** The HTTP status an `http` exit code stands for. */
  readonly httpStatus?: number;
  /** What it means, in a few words for a person. */
  readonly meaning: string;
}

/** Gemini's own codes: its FatalError classes (and the kind each is). */
const GEMINI_CODES: Readonly<Record<number, { kind: GeminiExitKind; meaning: string }>> = {
  0: { kind: "ok", meaning: "finished" },
  1: { kind: "error", meaning: "failed with an error it gave no code" },
  41: { kind: "auth", meaning: "could not authenticate (FatalAuthenticationError)" },
  42: { kind: "input", meaning: "refused its input (FatalInputError)" },
  44: { kind: "sandbox", meaning: "could not set up its own sandbox (FatalSandboxError)" },
  52: { kind: "config", meaning: "found its settings invalid (FatalConfigError)" },
  53: { kind: "turn_limit", meaning: "reached its maximum turns (FatalTurnLimitedError)" },
  54: { kind: "tool", meaning: "stopped on a fatal tool error (FatalToolExecutionError)" },
  55: {
    kind: "untrusted_workspace",
    meaning: "refused an untrusted workspace (FatalUntrustedWorkspaceError)",
  },
  130: { kind: "cancelled", meaning: "was cancelled (SIGINT or FatalCancellationError)" },
};

/** Signals a supervisor sends, by the exit code they leave. */
const SIGNALS: Readonly<Record<number, string>> = {
  129: "SIGHUP",
  131: "SIGQUIT",
  134: "SIGABRT",
  137: "SIGKILL",
  139: "SIGSEGV",
  141: "SIGPIPE",
  143: "SIGTERM",
};

/** The HTTP statuses an exit code can stand for: 400–511, reported mod 256. */
const HTTP_LOW = 400 % 256;
const HTTP_HIGH = 511 % 256;

/** What a Gemini CLI exit code means. Pure. */
export function geminiExit(code: number): GeminiExit {
  const own = GEMINI_CODES[code];
  if (own !== undefined) return { code, ...own };
  const signal = SIGNALS[code];
  if (signal !== undefined) return { code, kind: "signal", meaning: `was stopped (${signal})` };
  if (Number.isInteger(code) && code >= HTTP_LOW && code <= HTTP_HIGH) {
    const httpStatus = code + 256;
    return {
      code,
      kind: "http",
      httpStatus,
      meaning: `got HTTP status ${httpStatus} from the API`,
    };
  }
  return { code, kind: "unknown", meaning: "ended with an exit code it does not document" };
}

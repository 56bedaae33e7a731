// The bounds the Codex CLI adapter sets, each with its reason.

export const CODEX_LIMITS = {
  /**
   * How many started tool items the stream reader remembers (item id to name), so that an
   * item's completion is not reported as a second call. The oldest is forgotten first; a
   * forgotten one is reported again, never lost.
   */
  rememberedItems: 1024,
  /**
   * How many threads the usage ledger keeps a last snapshot for. One task resumes one thread;
   * more than a handful is a hostile stream, and a forgotten thread only makes its next
   * snapshot count whole.
   */
  rememberedThreads: 64,
  /** A tool's name in an event (an MCP server and tool): real names are short. */
  toolNameBytes: 128,
  /** How many changed files a file change summary names before it says how many more. */
  summaryFiles: 8,
} as const;

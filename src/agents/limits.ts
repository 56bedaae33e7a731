// The bounds the agent adapters set, each with its reason: first those every adapter keeps to,
// then each agent's own.

/** The bounds on what one event may carry, whichever agent wrote it. */
export const AGENT_EVENT_LIMITS = {
  /** Assistant text in one event: enough to follow along, not a transcript (that is kept whole). */
  textBytes: 4 * 1024,
  /** A tool input or result summary: one line on a terminal. */
  summaryBytes: 200,
  /** A line of an agent's stream longer than this is not parsed: it is skipped and counted. */
  lineBytes: 16 * 1024 * 1024,
  /** A tool's or a model's name, or a tool call's id: real ones are short, a longer one is cut. */
  nameBytes: 128,
  /**
   * One line of a command's output in an `output` event: a terminal line with room to spare. A
   * watcher follows along with these; the whole output is in the transcript and the agent log.
   */
  outputLineBytes: 1024,
} as const;

/** Claude Code's adapter. */
export const CLAUDE_LIMITS = {
  /**
   * How often Claude Code retries a failed API call (CLAUDE_CODE_MAX_RETRIES). Its backoff
   * doubles from about half a second, so eight retries ride out a minute or two of trouble;
   * a longer outage fails the task instead of spending its whole timeout waiting.
   */
  maxRetries: 8,
  /**
   * How many tool calls the stream reader remembers (id to name and summary), so that a later
   * denial can say what was denied. The oldest is forgotten first; a forgotten one is still
   * reported, only with less detail.
   */
  rememberedToolUses: 1024,
  /** A model name in an event, as Claude Code names it. */
  modelBytes: 256,
} as const;

/** Codex CLI's adapter. */
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
  /** How many changed files a file change summary names before it says how many more. */
  summaryFiles: 8,
} as const;

// The bounds the Claude Code adapter sets, each with its reason.

export const CLAUDE_LIMITS = {
  /**
   * How often Claude Code retries a failed API call (CLAUDE_CODE_MAX_RETRIES). Its backoff
   * doubles from about half a second, so eight retries ride out a minute or two of trouble;
   * a longer outage fails the task instead of spending its whole timeout waiting.
   */
  maxRetries: 8,
  /** A tool's name in an event: real names are short; a longer one is cut. */
  toolNameBytes: 128,
  /**
   * How many tool calls the stream reader remembers (id to name and summary), so that a later
   * denial can say what was denied. The oldest is forgotten first; a forgotten one is still
   * reported, only with less detail.
   */
  rememberedToolUses: 1024,
} as const;

// The bounds the Gemini CLI adapter sets, each with its reason.

export const GEMINI_LIMITS = {
  /** A tool's name or id in an event: Gemini's own are short (run_shell_command); longer is cut. */
  toolNameBytes: 128,
} as const;

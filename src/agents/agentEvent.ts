// warden's own events for what an agent does, whichever agent it is. Adapters read their
// agent's stream into these; the task's events record them; `watch` and `show` print them.
// Every text in them came from the sandbox: bounded here, cleaned before it is shown.
import { definedFields } from "../lang/index.js";

/** Why a bound ended the agent's run, when one did. */
export type AgentStop = "turns" | "budget";

export type AgentEvent =
  /** The agent's session began: its id (for resuming) and the model it says it uses. */
  | { readonly type: "session"; readonly sessionId?: string; readonly model?: string }
  | { readonly type: "turn_started"; readonly turn: number }
  | { readonly type: "turn_ended"; readonly turn: number }
  /** Text the assistant wrote, cut to AGENT_EVENT_LIMITS.textBytes (limits.ts). */
  | { readonly type: "assistant_text"; readonly text: string; readonly cut: boolean }
  /** A tool call: its name and a short one-line summary of its input. */
  | {
      readonly type: "tool_use";
      readonly id?: string;
      readonly name: string;
      readonly summary: string;
    }
  | {
      readonly type: "tool_result";
      readonly id?: string;
      readonly ok: boolean;
      readonly summary?: string;
    }
  /** Usage so far in this run (totals, not deltas). */
  | {
      readonly type: "usage";
      readonly inputTokens: number;
      readonly outputTokens: number;
      readonly costUSD?: number;
    }
  /** The agent retried a failed API call. */
  | {
      readonly type: "retry";
      readonly attempt: number;
      readonly status?: number;
      readonly message?: string;
    }
  | { readonly type: "permission_denied"; readonly tool: string; readonly summary?: string }
  /**
   * A line an agent without a format warden reads (a command) wrote on stdout or stderr, sent
   * while it runs. Cut to AGENT_EVENT_LIMITS.outputLineBytes; `skipped` counts the lines of the
   * same stream left out before it (past the runner's rate), and a last event of a run may carry
   * only that count, with an empty text. The whole output is in the transcript and the log.
   */
  | {
      readonly type: "output";
      readonly stream: "stdout" | "stderr";
      readonly text: string;
      readonly cut: boolean;
      readonly skipped?: number;
    }
  /** The agent's own account of how its run ended. */
  | {
      readonly type: "result";
      readonly ok: boolean;
      readonly stoppedBy?: AgentStop;
      readonly turns?: number;
      readonly costUSD?: number;
      /** The final answer, or the error, cut. */
      readonly message?: string;
    };

export type AgentEventType = AgentEvent["type"];

/**
 * Reads one run of an agent's stdout, a line at a time, into events. Stateful and pure: no I/O,
 * so a captured stream and a live one read the same. Never throws on hostile input: a line it
 * cannot read yields nothing.
 */
export interface StreamReader {
  line(text: string): AgentEvent[];
  /** The stream ended: whatever the reader held back. */
  end(): AgentEvent[];
}

/** An event without the fields its stream did not say (whose value is undefined). */
export const agentEvent: <E extends AgentEvent>(event: E) => E = definedFields;

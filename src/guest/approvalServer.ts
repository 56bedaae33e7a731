// Just enough of MCP (JSON-RPC 2.0 over stdio, a message a line) for Claude Code's
// `--permission-prompt-tool`: initialize, tools/list, and tools/call of the one tool, `approve`.
// Claude Code calls it with the tool a model wants to run and its input; the answer is the text
// of `{"behavior":"allow","updatedInput":...}` or `{"behavior":"deny","message":...}`. Whatever
// goes wrong in asking, the answer is a denial: a tool call never runs because warden could not
// ask about it.
import { errorMessage } from "../lang/index.js";
import { CHANNEL_LIMITS, cutText } from "../protocol/index.js";
import { PERMISSION_TOOL } from "./permissionPrompt.js";

/** What the host decided about one tool call. */
export interface ApprovalDecision {
  readonly decision: "allow" | "deny";
  readonly reason: string;
}

/** Asks the host about one tool call: its name and a summary of its input, both bounded. */
export type AskApproval = (tool: string, input: string) => Promise<ApprovalDecision>;

/** The MCP protocol version answered to a client that names none. */
const DEFAULT_PROTOCOL_VERSION = "2025-06-18";

const TOOL = {
  name: PERMISSION_TOOL,
  description: "Asks warden's host whether a tool call may run.",
  inputSchema: {
    type: "object",
    properties: {
      tool_name: { type: "string" },
      input: { type: "object" },
      tool_use_id: { type: "string" },
    },
    required: ["tool_name", "input"],
  },
} as const;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of Claude Code's permission answer. Pure. */
export function permissionAnswer(decision: ApprovalDecision, input: JsonObject): string {
  if (decision.decision === "allow") {
    return JSON.stringify({ behavior: "allow", updatedInput: input });
  }
  const message = decision.reason.trim() === "" ? "warden denied this tool call" : decision.reason;
  return JSON.stringify({ behavior: "deny", message });
}

/** The tool's name and input as approval.ask carries them, each cut to its limit. Pure. */
export function approvalQuestion(tool: unknown, input: unknown): { tool: string; input: string } {
  const name = typeof tool === "string" && tool !== "" ? tool : "(unnamed tool)";
  return {
    tool: cutText(name, CHANNEL_LIMITS.toolNameBytes).text,
    input: cutText(JSON.stringify(input ?? {}), CHANNEL_LIMITS.toolInputBytes).text,
  };
}

export class ApprovalServer {
  constructor(
    private readonly ask: AskApproval,
    /** Writes one JSON-RPC message (a line, newline included) to Claude Code. */
    private readonly write: (line: string) => void,
  ) {}

  /** Handles one line from Claude Code. Answers asynchronously; never throws. */
  line(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObject(message) || typeof message.method !== "string") return;
    const id = message.id;
    // A notification (no id) needs no answer: notifications/initialized, cancellations.
    if (typeof id !== "number" && typeof id !== "string") return;
    const params = isObject(message.params) ? message.params : {};
    switch (message.method) {
      case "initialize":
        this.result(id, {
          protocolVersion:
            typeof params.protocolVersion === "string"
              ? params.protocolVersion
              : DEFAULT_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: "warden-approvals", version: "1" },
        });
        return;
      case "ping":
        this.result(id, {});
        return;
      case "tools/list":
        this.result(id, { tools: [TOOL] });
        return;
      case "tools/call":
        void this.call(id, params);
        return;
      default:
        this.error(id, -32601, "method not found");
    }
  }

  private async call(id: number | string, params: JsonObject): Promise<void> {
    if (params.name !== PERMISSION_TOOL) {
      this.result(id, {
        content: [{ type: "text", text: `no tool named ${String(params.name)}` }],
        isError: true,
      });
      return;
    }
    const args = isObject(params.arguments) ? params.arguments : {};
    const input = isObject(args.input) ? args.input : {};
    const question = approvalQuestion(args.tool_name, input);
    let decision: ApprovalDecision;
    try {
      decision = await this.ask(question.tool, question.input);
    } catch (error) {
      const why = errorMessage(error);
      decision = {
        decision: "deny",
        reason: `warden could not ask whether this tool call may run, so it was denied: ${why}`,
      };
    }
    this.result(id, { content: [{ type: "text", text: permissionAnswer(decision, input) }] });
  }

  private result(id: number | string, result: JsonObject): void {
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
  }

  private error(id: number | string, code: number, message: string): void {
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}

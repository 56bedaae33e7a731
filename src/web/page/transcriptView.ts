// The conversation of a task, read from its agent events as they come: what the assistant
// said, each tool call folded with its summary and, once it came back, its result; the turns,
// retries, denials and the agent's own result between them. A command agent's output lines
// are kept as they came.
import { el } from "./dom.js";
import type { TaskEvent } from "./pageTypes.js";

/** The agent events the store records under this type (src/host/channel/eventTypes.ts). */
const AGENT_EVENT = "agent";
const OUTPUT_EVENT = "output";

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export class Transcript {
  readonly node = el("div", { class: "transcript", "aria-label": "transcript" });
  /** Open tool calls by the id the agent gave them, so a result lands under its call. */
  readonly #calls = new Map<string, HTMLElement>();
  #lastCall: HTMLElement | undefined;
  #output: HTMLElement | undefined;
  #empty: HTMLElement | undefined = el("p", { class: "muted" }, "nothing yet");

  constructor() {
    if (this.#empty !== undefined) this.node.append(this.#empty);
  }

  add(event: TaskEvent): void {
    const part =
      event.type === AGENT_EVENT
        ? this.#agent(event)
        : event.type === OUTPUT_EVENT
          ? this.#outputLine(event)
          : undefined;
    if (part === undefined) return;
    this.#empty?.remove();
    this.#empty = undefined;
    if (part.parentNode === null) this.node.append(part);
  }

  #agent(event: TaskEvent): HTMLElement | undefined {
    this.#output = undefined;
    switch (event.kind) {
      case "assistant_text":
        return el("div", { class: "said" }, str(event.text) + (event.cut === true ? " [cut]" : ""));
      case "tool_use": {
        const result = el("div", { class: "tool-result muted" }, "running");
        const call = el(
          "details",
          { class: "tool" },
          el("summary", {}, `${str(event.name) || "a tool"}: ${str(event.summary)}`),
          result,
        );
        const id = str(event.id);
        if (id !== "") this.#calls.set(id, call);
        this.#lastCall = call;
        return call;
      }
      case "tool_result": {
        const id = str(event.id);
        const call = id === "" ? this.#lastCall : this.#calls.get(id);
        const text = `${event.ok === true ? "ok" : "error"}${str(event.summary) === "" ? "" : `: ${str(event.summary)}`}`;
        const shown = el(
          "div",
          { class: event.ok === true ? "tool-result" : "tool-result bad" },
          text,
        );
        if (call === undefined) return shown;
        call.querySelector(".tool-result")?.replaceWith(shown);
        if (event.ok !== true) call.classList.add("bad");
        return call;
      }
      case "turn_started":
      case "retry":
      case "permission_denied":
      case "result":
        return el("div", { class: `step ${event.kind}` }, event.shown ?? event.kind);
      default:
        return undefined;
    }
  }

  /** Consecutive output lines share one block, as a terminal would show them. */
  #outputLine(event: TaskEvent): HTMLElement {
    const line = `${event.stream === "stderr" ? "! " : ""}${event.shown ?? str(event.text)}\n`;
    if (this.#output === undefined) this.#output = el("pre", { class: "output" });
    this.#output.append(line);
    return this.#output;
  }
}

// One task's page: its facts, its events as they happen (each folded to one line, its whole
// record inside), the approvals waiting for an answer, its changes, and the actions a person
// may take. Every action goes to the same store operation the CLI uses; its error is shown.
import { ApiError, type Api } from "./api.js";
import { clear, dollarsText, el, elapsedText } from "./dom.js";
import type { TaskRow } from "./listView.js";

interface Approval {
  n: number;
  state: string;
  tool?: string;
  input?: unknown;
  summary?: string;
}

interface TaskPage extends TaskRow {
  deadline: number;
  children: string[];
  parent: string | null;
  settings: Record<string, unknown>;
  summary?: string;
  approvals: Approval[];
}

interface TaskEvent {
  seq: number;
  time?: number;
  type: string;
  [field: string]: unknown;
}

interface Diff {
  diff: string;
}

function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    return error.hint === undefined ? error.message : `${error.message} (${error.hint})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** One line for an event: its time, type and the words that say most about it. */
function eventLine(event: TaskEvent): string {
  const time = event.time === undefined ? "" : new Date(event.time).toLocaleTimeString();
  const words = ["kind", "summary", "text", "line", "message", "state", "code"]
    .map((key) => event[key])
    .filter((value): value is string => typeof value === "string")
    .join(" · ");
  return `${time} ${event.type}${words === "" ? "" : `: ${words}`}`;
}

/** The call an approval asks about, whole: its input as the agent gave it, not quoted again. */
function callText(request: Approval): string {
  const input = request.input ?? request.summary ?? "";
  return typeof input === "string" ? input : JSON.stringify(input, null, 2);
}

function diffView(text: string): HTMLElement {
  const pre = el("pre", { class: "diff" });
  for (const line of text.split("\n")) {
    const kind = line.startsWith("@@")
      ? "hunk"
      : line.startsWith("+") && !line.startsWith("+++")
        ? "add"
        : line.startsWith("-") && !line.startsWith("---")
          ? "del"
          : "";
    pre.append(el("span", kind === "" ? {} : { class: kind }, `${line}\n`));
  }
  return pre;
}

export function showTask(main: HTMLElement, api: Api, id: string, signal: AbortSignal): void {
  const facts = el("dl", { class: "facts" });
  const approvals = el("div");
  const events = el("div", { class: "events", "aria-label": "events" });
  const changes = el("div");
  const problem = el("p", { class: "error", role: "alert" });
  const message = el("textarea", { "aria-label": "message" });
  const send = el("button", { type: "button" }, "send");
  const cancel = el("button", { type: "button" }, "cancel task");
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/" }, "all tasks")),
    facts,
    problem,
    el("section", {}, el("h3", {}, "waiting for an answer"), approvals),
    el("section", {}, el("h3", {}, "events"), events),
    el("section", {}, el("h3", {}, "message the agent"), message, send, cancel),
    el("section", {}, el("h3", {}, "changes"), changes),
  );

  const act = async (action: () => Promise<unknown>): Promise<void> => {
    problem.textContent = "";
    try {
      await action();
      await load();
    } catch (error) {
      problem.textContent = errorText(error);
    }
  };

  const load = async (): Promise<void> => {
    const task = await api.get<TaskPage>(`/api/tasks/${encodeURIComponent(id)}`);
    clear(facts);
    const fact = (name: string, value: string): void => {
      if (value !== "") facts.append(el("dt", {}, name), el("dd", {}, value));
    };
    fact("task", task.id);
    fact("title", task.title);
    fact("state", task.stoppedBy === undefined ? task.state : `${task.state} (${task.stoppedBy})`);
    fact("agent", task.agent ?? "");
    fact("repository", task.repo ?? "");
    fact("elapsed", elapsedText(task.createdAt, task.finishedAt ?? Date.now()));
    fact("cost", dollarsText(task.costUSD));
    fact("parent", task.parent ?? "");
    fact("children", task.children.join(", "));
    fact("summary", task.summary ?? "");
    fact("settings", JSON.stringify(task.settings, null, 1));
    const finished = task.finishedAt !== undefined;
    cancel.hidden = finished;
    clear(approvals);
    for (const request of task.approvals.filter((r) => r.state === "pending")) {
      const allow = el("button", { type: "button" }, "allow");
      const deny = el("button", { type: "button" }, "deny");
      allow.addEventListener("click", () => {
        void act(() =>
          api.post(`/api/tasks/${task.id}/approvals/${request.n}`, { decision: "allow" }),
        );
      });
      deny.addEventListener("click", () => {
        void act(() =>
          api.post(`/api/tasks/${task.id}/approvals/${request.n}`, { decision: "deny" }),
        );
      });
      approvals.append(
        el(
          "div",
          { class: "approval" },
          el("strong", {}, `request ${request.n}: ${request.tool ?? "a tool"}`),
          el("pre", { class: "call" }, callText(request)),
          el("div", { class: "answer" }, allow, deny),
        ),
      );
    }
    if (approvals.childElementCount === 0) approvals.append(el("p", {}, "nothing"));
    if (finished && changes.childElementCount === 0) {
      try {
        const diff = await api.get<Diff>(`/api/tasks/${task.id}/diff`);
        changes.append(diff.diff === "" ? el("p", {}, "no changes") : diffView(diff.diff));
      } catch (error) {
        changes.append(el("p", {}, errorText(error)));
      }
    }
  };

  send.addEventListener("click", () => {
    const text = message.value;
    void act(async () => {
      await api.post(`/api/tasks/${encodeURIComponent(id)}/messages`, { text });
      message.value = "";
    });
  });
  cancel.addEventListener("click", () => {
    void act(() => api.post(`/api/tasks/${encodeURIComponent(id)}/cancel`, {}));
  });

  void load().catch((error: unknown) => {
    problem.textContent = errorText(error);
  });
  void api
    .stream(`/api/tasks/${encodeURIComponent(id)}/events?since=0`, signal, (served) => {
      if (served.event === "end") {
        void load();
        return;
      }
      const event = served.data as TaskEvent;
      const line = el(
        "details",
        {},
        el("summary", {}, eventLine(event)),
        el("pre", {}, JSON.stringify(event, null, 2)),
      );
      events.append(line);
      events.scrollTop = events.scrollHeight;
      if (event.type.startsWith("approval") || event.type === "state") void load();
    })
    .catch(() => undefined);
}

// One task's page: its facts and tree, the approvals waiting for an answer, the conversation
// and the events as they happen, the messages sent and their replies, its cost over time, its
// changes, and the actions a person may take. Every action goes to the same store operation the
// CLI uses; its error is shown.
import { ApiError, type Api } from "./api.js";
import { CostChart } from "./costChart.js";
import { diffView } from "./diffView.js";
import { clear, dollarsText, el, elapsedText, stateText } from "./dom.js";
import type { Approval, DiffAnswer, InboxEntry, TaskEvent, TaskPage } from "./pageTypes.js";
import { Transcript } from "./transcriptView.js";

/** Events after which the task's facts, approvals or messages have changed. */
const RELOAD_ON = new Set([
  "state",
  "attached",
  "stopping",
  "suspended",
  "approval_asked",
  "approval_answered",
  "message_taken",
  "message_delivered",
]);

function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    return error.hint === undefined ? error.message : `${error.message} (${error.hint})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** One line for an event: its time and the words `warden watch` prints for it. */
function eventLine(event: TaskEvent): string {
  const time = new Date(event.at).toLocaleTimeString();
  const words =
    event.shown ??
    ["kind", "summary", "text", "line", "message", "state", "code"]
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

/** Where a message has got to, as `send --await` would wait for it. */
function messageView(message: InboxEntry): HTMLElement {
  const answer =
    message.state === "delivered"
      ? el(
          "div",
          { class: "reply" },
          `reply: ${message.reply ?? "(none)"}${message.replyCut === true ? " [cut]" : ""}`,
        )
      : el(
          "div",
          { class: "reply pending", role: "status" },
          message.state === "pending"
            ? "waiting for the agent to take it…"
            : "the agent has it; waiting for its reply…",
        );
  return el(
    "div",
    { class: "message" },
    el("div", { class: "sent" }, `you: ${message.body}`),
    answer,
  );
}

/** Why and since when a task is suspended, and how it goes on; "" when it is not suspended. */
function suspensionText(suspended: TaskPage["suspended"]): string {
  if (suspended === undefined) return "";
  const why = suspended.reason === "usage_limit" ? "the model API's usage limit" : "on request";
  const since = new Date(suspended.at).toLocaleTimeString();
  const goesOn =
    suspended.resumeAt === undefined
      ? "resume runs it on"
      : `resumes by itself at ${new Date(suspended.resumeAt).toLocaleTimeString()}`;
  return `${why} since ${since}; ${goesOn}`;
}

function taskLink(id: string): HTMLElement {
  return el("a", { href: `#/task/${id}` }, id);
}

export function showTask(main: HTMLElement, api: Api, id: string, signal: AbortSignal): void {
  const facts = el("dl", { class: "facts" });
  const approvals = el("div");
  const transcript = new Transcript();
  const messages = el("div", { "aria-label": "messages" });
  const cost = new CostChart();
  const events = el("div", { class: "events", "aria-label": "events" });
  const changes = el("div");
  const problem = el("p", { class: "error", role: "alert" });
  const message = el("textarea", { "aria-label": "message" });
  const send = el("button", { type: "button" }, "send");
  const suspend = el("button", { type: "button" }, "suspend");
  const resume = el("button", { type: "button" }, "resume");
  suspend.hidden = true;
  resume.hidden = true;
  const cancel = el("button", { type: "button" }, "cancel task");
  const rerun = el("button", { type: "button" }, "run again");
  rerun.hidden = true;
  const section = (title: string, ...body: HTMLElement[]): HTMLElement =>
    el("section", {}, el("h3", {}, title), ...body);
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/" }, "all tasks")),
    facts,
    el("div", { class: "actions" }, suspend, resume, cancel, rerun),
    problem,
    section("waiting for an answer", approvals),
    section("conversation", transcript.node),
    section("messages", messages, message, send),
    section("cost over time", cost.node),
    section("events", events),
    section("changes", changes),
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

  let changesAsked = false;
  /** The task's whole id once loaded (the address may hold a prefix). */
  let shownId = id;
  const load = async (): Promise<void> => {
    const task = await api.get<TaskPage>(`/api/tasks/${encodeURIComponent(id)}`);
    shownId = task.id;
    clear(facts);
    const fact = (name: string, ...value: (HTMLElement | string)[]): void => {
      if (value.length > 0 && value[0] !== "")
        facts.append(el("dt", {}, name), el("dd", {}, ...value));
    };
    fact("task", task.id);
    fact("title", task.title);
    fact("state", stateText(task));
    fact("suspended", suspensionText(task.suspended));
    fact("agent", task.agent ?? "");
    fact("repository", task.repo ?? "");
    fact("elapsed", elapsedText(task.createdAt, task.finishedAt ?? Date.now()));
    fact("cost", dollarsText(task.costUSD));
    if (task.parent !== null) fact("parent", taskLink(task.parent));
    if (task.children.length > 0) {
      fact(
        "children",
        ...task.children.flatMap((child, i) =>
          i === 0 ? [taskLink(child)] : [", ", taskLink(child)],
        ),
      );
    }
    fact("summary", task.summary ?? "");
    fact("settings", JSON.stringify(task.settings, null, 1));
    const finished = task.finishedAt !== undefined;
    cancel.hidden = finished;
    rerun.hidden = !finished;
    // Only a running task can be suspended, and only a suspended one resumed.
    suspend.hidden = task.state !== "running";
    resume.hidden = task.state !== "suspended";
    clear(approvals);
    for (const request of task.approvals.filter((r) => r.state === "pending")) {
      const answer = (decision: "allow" | "deny"): void => {
        void act(() => api.post(`/api/tasks/${task.id}/approvals/${request.n}`, { decision }));
      };
      const allow = el("button", { type: "button" }, "allow");
      const deny = el("button", { type: "button" }, "deny");
      allow.addEventListener("click", () => {
        answer("allow");
      });
      deny.addEventListener("click", () => {
        answer("deny");
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
    messages.replaceChildren(...task.inbox.map(messageView));
    if (!finished) {
      changes.replaceChildren(el("p", { class: "muted" }, "shown once the task ends"));
    } else if (!changesAsked) {
      // Asked once: loads overlap (each event may start one) and a task's changes never change.
      changesAsked = true;
      let shown: HTMLElement;
      try {
        shown = diffView(await api.get<DiffAnswer>(`/api/tasks/${task.id}/diff`));
      } catch (error) {
        shown = el("p", {}, errorText(error));
      }
      changes.replaceChildren(shown);
    }
  };

  send.addEventListener("click", () => {
    const text = message.value;
    void act(async () => {
      await api.post(`/api/tasks/${encodeURIComponent(id)}/messages`, { text });
      message.value = "";
    });
  });
  suspend.addEventListener("click", () => {
    void act(() => api.post(`/api/tasks/${encodeURIComponent(id)}/suspend`, {}));
  });
  resume.addEventListener("click", () => {
    void act(() => api.post(`/api/tasks/${encodeURIComponent(id)}/resume`, {}));
  });
  cancel.addEventListener("click", () => {
    void act(() => api.post(`/api/tasks/${encodeURIComponent(id)}/cancel`, {}));
  });
  rerun.addEventListener("click", () => {
    void act(async () => {
      const made = await api.post<{ id: string }>(`/api/tasks/${encodeURIComponent(id)}/rerun`, {});
      location.hash = `#/task/${made.id}`;
    });
  });

  void load().catch((error: unknown) => {
    problem.textContent = errorText(error);
  });
  // The list feed names the tasks whose files changed: a change of state that no event follows
  // (a suspension is whole once the executor lets go, after its last event) reloads the facts.
  void api
    .stream("/api/feed", signal, (served) => {
      const named = (served.data as { tasks?: unknown } | undefined)?.tasks;
      if (!Array.isArray(named) || named.includes(shownId)) void load();
    })
    .catch(() => undefined);
  void api
    .stream(`/api/tasks/${encodeURIComponent(id)}/events?since=0`, signal, (served) => {
      if (served.event === "end") {
        void load();
        return;
      }
      const event = served.data as TaskEvent;
      transcript.add(event);
      cost.add(event);
      events.append(
        el(
          "details",
          {},
          el("summary", {}, eventLine(event)),
          el("pre", {}, JSON.stringify(event, null, 2)),
        ),
      );
      events.scrollTop = events.scrollHeight;
      if (RELOAD_ON.has(event.type) || event.type.startsWith("approval")) void load();
    })
    .catch(() => undefined);
}

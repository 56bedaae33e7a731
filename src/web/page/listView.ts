// The list of tasks: newest first, a page at a time, filtered by state and repository on the
// page, and fetched again whenever the server says the list may have changed.
import type { Api } from "./api.js";
import { clear, dollarsText, el, elapsedText, stateText } from "./dom.js";

export interface TaskRow {
  id: string;
  shortId: string;
  state: string;
  stoppedBy?: string;
  title: string;
  repo?: string;
  createdAt: number;
  finishedAt?: number;
  agent?: string;
  changes?: boolean;
  commits?: number;
  costUSD?: number;
  approvalsPending: number;
  /** Why and since when a suspended task is suspended, and when it resumes by itself if it does. */
  suspended?: { reason: string; at: number; resumeAt?: number };
}

interface ListAnswer {
  tasks: TaskRow[];
  total: number;
  more: boolean;
}

const STATES = [
  "",
  "queued",
  "created",
  "running",
  "suspended",
  "interrupted",
  "succeeded",
  "failed",
  "cancelled",
];

export function showList(main: HTMLElement, api: Api, signal: AbortSignal): void {
  let rows: TaskRow[] = [];
  let more = false;
  const state = el("select", { "aria-label": "state" });
  for (const name of STATES) state.append(el("option", { value: name }, name || "every state"));
  const repo = el("select", { "aria-label": "repository" });
  const body = el("tbody");
  const count = el("span", { class: "count" });
  const moreButton = el("button", { type: "button" }, "more");
  main.replaceChildren(
    el("div", { class: "filters" }, state, repo, count),
    el(
      "table",
      {},
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "task"),
          el("th", {}, "state"),
          el("th", {}, "title"),
          el("th", { class: "wide" }, "agent"),
          el("th", { class: "wide" }, "repository"),
          el("th", {}, "elapsed"),
          el("th", { class: "wide" }, "cost"),
          el("th", { class: "wide" }, "changes"),
        ),
      ),
      body,
    ),
    moreButton,
  );

  const render = (): void => {
    const repos = [...new Set(rows.map((row) => row.repo ?? ""))].filter(Boolean).sort();
    const chosenRepo = repo.value;
    clear(repo);
    repo.append(el("option", { value: "" }, "every repository"));
    for (const name of repos) repo.append(el("option", { value: name }, name));
    repo.value = repos.includes(chosenRepo) ? chosenRepo : "";
    clear(body);
    const now = Date.now();
    const shown = rows.filter(
      (row) =>
        (state.value === "" || row.state === state.value) &&
        (repo.value === "" || row.repo === repo.value),
    );
    for (const row of shown) {
      const tr = el(
        "tr",
        { class: "row", "data-id": row.id },
        el("td", {}, el("a", { href: `#/task/${row.id}` }, row.shortId)),
        el(
          "td",
          { class: `state-${row.state}` },
          stateText(row),
          row.approvalsPending > 0 &&
            el("span", { class: "waiting", title: "waiting for an approval" }, " approval "),
        ),
        el("td", { class: "title" }, row.title),
        el("td", { class: "wide" }, row.agent ?? ""),
        el("td", { class: "wide" }, row.repo ?? ""),
        el("td", {}, elapsedText(row.createdAt, row.finishedAt ?? now)),
        el("td", { class: "wide" }, dollarsText(row.costUSD)),
        el(
          "td",
          { class: "wide" },
          row.commits === undefined ? (row.changes === false ? "none" : "") : `${row.commits}`,
        ),
      );
      tr.addEventListener("click", () => {
        location.hash = `#/task/${row.id}`;
      });
      body.append(tr);
    }
    count.textContent = `${shown.length} shown of ${rows.length} loaded`;
    moreButton.hidden = !more;
  };

  const load = async (): Promise<void> => {
    const first = await api.get<ListAnswer>("/api/tasks");
    // A refresh keeps the pages already loaded beyond the first.
    const kept = rows
      .slice(first.tasks.length)
      .filter((row) => !first.tasks.some((t) => t.id === row.id));
    rows = [...first.tasks, ...kept];
    more = first.more && kept.length === 0 ? first.more : more;
    render();
  };
  moreButton.addEventListener("click", () => {
    const last = rows.at(-1);
    if (last === undefined) return;
    void api.get<ListAnswer>(`/api/tasks?before=${encodeURIComponent(last.id)}`).then((next) => {
      rows = [...rows, ...next.tasks];
      more = next.more;
      render();
    });
  });
  state.addEventListener("change", render);
  repo.addEventListener("change", render);
  void api
    .stream("/api/feed", signal, () => {
      void load();
    })
    .catch(() => undefined);
}

// A task's changes: its commits, each with the subject it wrote, then the diff, its lines
// coloured as added, removed or hunk headers and the code in them lightly coloured by kind.
import { el } from "./dom.js";
import { highlightCode } from "./highlightCode.js";
import type { DiffAnswer } from "./pageTypes.js";

/** Past this many lines the rest of the diff is shown plain; `warden diff` shows it whole. */
const MAX_COLOURED_LINES = 5_000;

function lineKind(line: string): string {
  if (line.startsWith("diff --git") || line.startsWith("+++ ") || line.startsWith("--- ")) {
    return "file";
  }
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "";
}

function codeLine(line: string, kind: string): HTMLElement {
  const span = el("span", kind === "" ? {} : { class: kind });
  if (kind === "add" || kind === "del" || kind === "") {
    span.append(line.slice(0, 1));
    for (const token of highlightCode(line.slice(1))) {
      span.append(
        token.kind === "plain"
          ? token.text
          : el("span", { class: `tok-${token.kind}` }, token.text),
      );
    }
  } else {
    span.append(line);
  }
  span.append("\n");
  return span;
}

export function diffView(answer: DiffAnswer): HTMLElement {
  const view = el("div");
  const commits = answer.commits ?? [];
  if (commits.length > 0) {
    const list = el("ol", { class: "commits" });
    for (const commit of commits) {
      list.append(el("li", {}, el("code", {}, commit.sha.slice(0, 12)), ` ${commit.subject}`));
    }
    view.append(list);
  }
  if (answer.diff === "") {
    view.append(el("p", {}, "no changes"));
    return view;
  }
  const pre = el("pre", { class: "diff" });
  const lines = answer.diff.split("\n");
  lines.forEach((line, i) => {
    const kind = lineKind(line);
    pre.append(i < MAX_COLOURED_LINES ? codeLine(line, kind) : el("span", {}, `${line}\n`));
  });
  view.append(pre);
  return view;
}

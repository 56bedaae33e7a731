// The task's cost over time, from the relay's usage events: a line from the first measure to
// the last, drawn as SVG elements (no markup, no inline style, so the page's CSP holds).
import { dollarsText, el, svgEl } from "./dom.js";
import type { TaskEvent } from "./pageTypes.js";

/** The store's type for the relay's running measure (src/host/spending/taskSpending.ts). */
const USAGE_EVENT = "usage";
const WIDTH = 320;
const HEIGHT = 90;
/** Room for the axis labels. */
const PAD = 4;

export class CostChart {
  readonly node = el("div", { class: "cost-chart" });
  readonly #points: { time: number; cost: number }[] = [];

  constructor() {
    this.node.append(el("p", { class: "muted" }, "no model requests measured yet"));
  }

  add(event: TaskEvent): void {
    if (event.type !== USAGE_EVENT) return;
    const cost = event.costUSD;
    const time = event.at;
    if (typeof cost !== "number" || !Number.isFinite(cost) || typeof time !== "number") return;
    this.#points.push({ time, cost });
    this.#draw();
  }

  #draw(): void {
    const points = this.#points;
    const first = points[0];
    const last = points.at(-1);
    if (first === undefined || last === undefined) return;
    const span = Math.max(1, last.time - first.time);
    const top = Math.max(...points.map((p) => p.cost), 1e-9);
    const x = (time: number): number => PAD + ((time - first.time) / span) * (WIDTH - 2 * PAD);
    const y = (cost: number): number => HEIGHT - PAD - (cost / top) * (HEIGHT - 2 * PAD);
    const line = points.map((p) => `${x(p.time).toFixed(1)},${y(p.cost).toFixed(1)}`).join(" ");
    const seconds = Math.round(span / 1000);
    this.node.replaceChildren(
      svgEl(
        "svg",
        {
          viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
          width: String(WIDTH),
          height: String(HEIGHT),
          role: "img",
          "aria-label": `cost over time, ${dollarsText(last.cost)} after ${seconds}s`,
        },
        svgEl("rect", {
          x: "0",
          y: "0",
          width: String(WIDTH),
          height: String(HEIGHT),
          class: "frame",
        }),
        svgEl("polyline", {
          points: points.length === 1 ? `${line} ${line}` : line,
          class: "cost-line",
        }),
      ),
      el(
        "p",
        { class: "muted" },
        `${dollarsText(last.cost)} after ${seconds}s, ${points.length} measure${points.length === 1 ? "" : "s"}`,
      ),
    );
  }
}

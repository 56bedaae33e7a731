// The page builds every element through `el`, which sets text with textContent and never HTML:
// nothing a task says can become markup or script, whatever it contains.

type Child = Node | string | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function clear(node: Element): void {
  node.replaceChildren();
}

export function elapsedText(fromMs: number, toMs: number): string {
  const s = Math.max(0, Math.round((toMs - fromMs) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, "0")}m`;
}

export function dollarsText(usd: number | undefined): string {
  return usd === undefined ? "" : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** A task's state as the list and its page show it: a bound that ended it, a suspension's end. */
export function stateText(row: {
  state: string;
  stoppedBy?: string;
  suspended?: { resumeAt?: number };
}): string {
  if (row.stoppedBy !== undefined) return `${row.state} (${row.stoppedBy})`;
  const resumeAt = row.suspended?.resumeAt;
  if (resumeAt !== undefined) {
    return `${row.state} (until ${new Date(resumeAt).toLocaleTimeString()})`;
  }
  return row.state;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with its attributes; like `el`, it never takes markup. */
export function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

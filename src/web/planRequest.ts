// What a request to `warden serve` asks for, decided by a pure function from its method, URL
// and headers: which route, or why it is refused. The server does the I/O afterwards.
import { isToken } from "./webToken.js";

/** The cookie the page's own GETs may carry the token in; a change never counts on it. */
export const TOKEN_COOKIE = "warden-token";

export type WebRoute =
  /** The page and its assets. */
  | { readonly kind: "page" }
  | { readonly kind: "asset"; readonly name: "app.js" | "app.css" }
  /** Tasks, newest first, a page at a time: those created before `before` (an id) when given. */
  | { readonly kind: "list"; readonly before: string | undefined }
  /** A server-sent event each time the list may have changed. */
  | { readonly kind: "listFeed" }
  | { readonly kind: "task"; readonly ref: string }
  /** The task's events after `since`, then each new one, as server-sent events. */
  | { readonly kind: "events"; readonly ref: string; readonly since: number }
  | { readonly kind: "diff"; readonly ref: string }
  | { readonly kind: "send"; readonly ref: string }
  | { readonly kind: "approve"; readonly ref: string; readonly n: number }
  | { readonly kind: "cancel"; readonly ref: string }
  /** Suspend a running task (at its next turn boundary, or at once with `now` in the body). */
  | { readonly kind: "suspend"; readonly ref: string }
  /** Run a suspended task on, in the background. */
  | { readonly kind: "resume"; readonly ref: string }
  /** A new task with this one's spec, run in the background. */
  | { readonly kind: "rerun"; readonly ref: string };

export type RequestPlan =
  | { readonly kind: "serve"; readonly route: WebRoute; readonly setCookie: boolean }
  | { readonly kind: "refuse"; readonly status: number; readonly message: string };

export interface RequestFacts {
  readonly method: string;
  /** The request target as sent: a path and maybe a query. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ServerFacts {
  readonly token: string;
  /** The Host header values this server answers to (DNS rebinding is refused). */
  readonly hosts: ReadonlySet<string>;
}

/** A task reference as the CLI takes one: an id, a unique prefix, or @last. */
const REF = /^(?:@last|[0-9a-z]{1,64})$/;

function header(facts: RequestFacts, name: string): string | undefined {
  const value = facts.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearer(facts: RequestFacts): string | undefined {
  const value = header(facts, "authorization");
  const match = value === undefined ? null : /^Bearer ([^\s]+)$/.exec(value);
  return match?.[1];
}

function cookieToken(facts: RequestFacts): string | undefined {
  const cookies = header(facts, "cookie") ?? "";
  for (const part of cookies.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return rest.join("=");
  }
  return undefined;
}

const refuse = (status: number, message: string): RequestPlan => ({
  kind: "refuse",
  status,
  message,
});

/** The route a method and path name, or undefined when none does. */
function routeOf(method: string, path: string, query: URLSearchParams): WebRoute | undefined {
  const parts = path.split("/").slice(1);
  if (method === "GET") {
    if (path === "/") return { kind: "page" };
    if (path === "/app.js" || path === "/app.css") {
      return { kind: "asset", name: path === "/app.js" ? "app.js" : "app.css" };
    }
    if (path === "/api/tasks") return { kind: "list", before: query.get("before") ?? undefined };
    if (path === "/api/feed") return { kind: "listFeed" };
  }
  if (parts[0] !== "api" || parts[1] !== "tasks" || parts.length < 3) return undefined;
  const ref = parts[2] ?? "";
  if (!REF.test(ref)) return undefined;
  const rest = parts.slice(3).join("/");
  if (method === "GET") {
    if (rest === "") return { kind: "task", ref };
    if (rest === "diff") return { kind: "diff", ref };
    if (rest === "events") {
      const since = Number(query.get("since") ?? "0");
      return Number.isSafeInteger(since) && since >= 0 ? { kind: "events", ref, since } : undefined;
    }
  }
  if (method === "POST") {
    if (rest === "messages") return { kind: "send", ref };
    if (rest === "cancel") return { kind: "cancel", ref };
    if (rest === "suspend") return { kind: "suspend", ref };
    if (rest === "resume") return { kind: "resume", ref };
    if (rest === "rerun") return { kind: "rerun", ref };
    const approval = /^approvals\/([1-9][0-9]{0,8})$/.exec(rest);
    if (approval?.[1] !== undefined) return { kind: "approve", ref, n: Number(approval[1]) };
  }
  return undefined;
}

/**
 * Decides a request. Every request must name this server in Host and carry the token: a GET in
 * the Authorization header, the `token` query parameter or the page's cookie; a POST in the
 * header alone, with a JSON body, so no other site's form or image can make a change.
 */
export function planRequest(request: RequestFacts, server: ServerFacts): RequestPlan {
  const host = header(request, "host");
  if (host === undefined || !server.hosts.has(host.toLowerCase())) {
    return refuse(421, "this server does not answer to that host name");
  }
  let url: URL;
  try {
    url = new URL(request.url, "http://server");
  } catch {
    return refuse(400, "the request's target cannot be read");
  }
  const route = routeOf(request.method, url.pathname, url.searchParams);
  const queryToken = url.searchParams.get("token") ?? undefined;
  if (request.method === "POST") {
    if (!isToken(bearer(request), server.token)) {
      return refuse(401, "a change needs the token in the Authorization header");
    }
    const type = header(request, "content-type") ?? "";
    if (!/^application\/json(?:;|$)/i.test(type)) {
      return refuse(415, "a change is sent as application/json");
    }
  } else if (request.method === "GET") {
    const given = [bearer(request), queryToken, cookieToken(request)];
    if (!given.some((candidate) => isToken(candidate, server.token))) {
      return refuse(401, "open the address `warden serve` printed: it carries the token");
    }
  } else {
    return refuse(405, "only GET and POST are served");
  }
  if (route === undefined) return refuse(404, "there is nothing here");
  return {
    kind: "serve",
    route,
    // The page was opened from the printed address: its own later GETs carry the cookie.
    setCookie: route.kind === "page" && isToken(queryToken, server.token),
  };
}

// The request target of a request to the API relay, checked as it arrived (Node passes it on
// as sent) before anything goes upstream. A target another server could read as a different
// path (dot segments, encoded separators, empty segments, backslashes, a fragment) is refused,
// and so is every path that is not on the API's list: the key is only ever used for the model
// API. Pure, so each refusal is tested on its own.
import { cutText } from "../protocol/index.js";
import {
  RelayBackslashError,
  RelayDotSegmentError,
  RelayEmptySegmentError,
  RelayEscapeError,
  RelayFragmentError,
  RelayMethodNotAllowedError,
  RelayPathNotAllowedError,
  RelayTargetCharacterError,
  RelayTargetFormError,
  type RelayRefusal,
} from "./errors.js";
import { EGRESS_LIMITS } from "./limits.js";
import {
  RELAY_APIS,
  routeText,
  type ApiKind,
  type RelayRoute,
  type RouteSegment,
} from "./relayApis.js";
import { upstreamQuery } from "./relayHeaders.js";

/** A target the relay forwards: a path on the API's list and the query it passes on. */
export interface CheckedTarget {
  /** `/` and the segments of a route, exactly as the sandbox sent them. */
  readonly path: string;
  /** The query without its leading `?` and without credential parameters; "" for none. */
  readonly query: string;
}

export type TargetCheck =
  | {
      readonly kind: "forward";
      readonly target: CheckedTarget;
      /** Whether the request costs money: the spending gate is asked and its answer metered. */
      readonly metered: boolean;
    }
  | { readonly kind: "refuse"; readonly refusal: RelayRefusal };

/** Anything but visible ASCII: spaces, control characters, DEL and every byte above 0x7e. */
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/;

/** A `%` without two hex digits after it. */
const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Whether a percent escape in `segment` stands for a byte a server could read as structure:
 * `/`, `\`, `%` itself (decoded twice, `%252e` is `.`), a control character or DEL.
 */
function hasStructuralEscape(segment: string): boolean {
  for (const [, hex] of segment.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const byte = Number.parseInt(hex ?? "", 16);
    if (byte === 0x2f || byte === 0x5c || byte === 0x25 || byte < 0x20 || byte === 0x7f) {
      return true;
    }
  }
  return false;
}

/** Whether the segment is `.` or `..`, with any of its dots written as `%2e` or `%2E`. */
function isDotSegment(segment: string): boolean {
  const dots = segment.replace(/%2e/gi, ".");
  return dots === "." || dots === "..";
}

function segmentMatches(pattern: RouteSegment, segment: string): boolean {
  return typeof pattern === "string" ? pattern === segment : pattern.pattern.test(segment);
}

function routeMatches(route: RelayRoute, segments: readonly string[]): boolean {
  return (
    route.segments.length === segments.length &&
    route.segments.every((pattern, i) => segmentMatches(pattern, segments[i] ?? ""))
  );
}

/** The first refusal one segment earns, or undefined when it is a plain segment. */
function refuseSegment(segment: string): RelayRefusal | undefined {
  if (segment === "") return new RelayEmptySegmentError();
  if (BROKEN_ESCAPE.test(segment) || hasStructuralEscape(segment)) return new RelayEscapeError();
  if (isDotSegment(segment)) return new RelayDotSegmentError();
  return undefined;
}

function refuse(refusal: RelayRefusal): TargetCheck {
  return { kind: "refuse", refusal };
}

/**
 * Checks one request to the relay of `api`: its method and its request target as received
 * (`req.url`, before any normalisation). Returns the target to forward, or the refusal to
 * answer the sandbox with; a refused request never reaches the upstream.
 */
export function checkRelayTarget(api: ApiKind, method: string, rawTarget: string): TargetCheck {
  if (NOT_VISIBLE_ASCII.test(rawTarget)) return refuse(new RelayTargetCharacterError());
  if (!rawTarget.startsWith("/")) return refuse(new RelayTargetFormError());
  if (rawTarget.includes("#")) return refuse(new RelayFragmentError());
  const mark = rawTarget.indexOf("?");
  const path = mark === -1 ? rawTarget : rawTarget.slice(0, mark);
  const query = mark === -1 ? "" : rawTarget.slice(mark + 1);
  if (path.includes("\\")) return refuse(new RelayBackslashError());
  const segments = path.slice(1).split("/");
  for (const segment of segments) {
    const refusal = refuseSegment(segment);
    if (refusal !== undefined) return refuse(refusal);
  }

  const routes = RELAY_APIS[api].routes.filter((route) => routeMatches(route, segments));
  const shown = cutText(path, EGRESS_LIMITS.relayShownPathBytes).text;
  const listed = RELAY_APIS[api].routes.map(routeText).join(", ");
  if (routes.length === 0) {
    return refuse(
      new RelayPathNotAllowedError(`${shown} is not a path the relay forwards to the ${api} API`, {
        hint: `the relay forwards only ${listed}`,
      }),
    );
  }
  if (!routes.some((route) => route.method === method)) {
    const allow = routes.map((route) => route.method);
    return refuse(
      new RelayMethodNotAllowedError(
        `the relay forwards ${shown} only as ${allow.join(" or ")}, not ${method}`,
        { hint: `the relay forwards only ${listed}`, allow },
      ),
    );
  }
  const metered = routes.some((route) => route.method === method && route.metered === true);
  return { kind: "forward", target: { path, query: upstreamQuery(query) }, metered };
}

/**
 * The path of the upstream request: the upstream URL's path prefix (without its trailing
 * slash), then the checked path and query. The raw target never goes into it.
 */
export function upstreamPath(prefix: string, target: CheckedTarget): string {
  const query = target.query === "" ? "" : `?${target.query}`;
  return `${prefix.replace(/\/+$/, "")}${target.path}${query}`;
}

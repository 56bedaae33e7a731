// The errors of the network gate: each has a stable code and a hint.
import { WardenError, type WardenErrorOptions } from "../protocol/index.js";

/** An entry of the allow list (from --allow or a preset) that warden cannot read. */
export class BadAllowEntryError extends WardenError {
  static override readonly hint =
    "write HOST (port 443), HOST:PORT, *.DOMAIN[:PORT], an IP address such as " +
    "127.0.0.1:8443 or [::1]:8443, or a CIDR such as 10.0.0.0/8:443";
  readonly code: string = "BAD_ALLOW_ENTRY";
  readonly exitClass = "usage";
}

/** A preset name that is not in the table of presets. */
export class UnknownPresetError extends WardenError {
  readonly code: string = "UNKNOWN_PRESET";
  readonly exitClass = "usage";
}

/** Settings of the API relay it cannot start with: a bad upstream URL, a missing key. */
export class BadRelaySettingError extends WardenError {
  readonly code: string = "BAD_RELAY_SETTING";
  readonly exitClass = "operational";
}

/** A socket directory whose paths are too long for a unix socket, or that is not private. */
export class EgressDirError extends WardenError {
  readonly code: string = "EGRESS_DIR";
  readonly exitClass = "operational";
}

/**
 * A request to the API relay that it refuses before anything goes upstream. `status` is the
 * HTTP status of the answer and `type` the Anthropic and OpenAI error type it carries (a 400
 * invalid_request_error unless the refusal says otherwise); the answer itself is in the error
 * shape of the API the relay speaks.
 */
export abstract class RelayRefusal extends WardenError {
  /** What a refusal of this class says when its caller gives no message. */
  static readonly defaultMessage: string = "the relay refuses the request";
  readonly exitClass = "operational";
  readonly status: number = 400;
  readonly type: string = "invalid_request_error";
  constructor(message?: string, options: WardenErrorOptions = {}) {
    super(message ?? new.target.defaultMessage, options);
  }
}

/** A request target that is not a path: absolute-form (`http://host/…`), authority-form or `*`. */
export class RelayTargetFormError extends RelayRefusal {
  static override readonly hint =
    "send the path alone (/v1/messages), as a client given the relay's base URL does";
  static override readonly defaultMessage = "the request target is not a path";
  readonly code: string = "RELAY_TARGET_FORM";
}

/** A `.` or `..` segment, written out or percent-encoded (`%2e`, `%2E.`, …). */
export class RelayDotSegmentError extends RelayRefusal {
  static override readonly hint = "send the API's path as it is, without . or .. segments";
  static override readonly defaultMessage = "the request path has a . or .. segment";
  readonly code: string = "RELAY_DOT_SEGMENT";
}

/** An empty segment: `//` anywhere in the path, or a path that ends with `/`. */
export class RelayEmptySegmentError extends RelayRefusal {
  static override readonly hint = "send the API's path as it is, with one / between segments";
  static override readonly defaultMessage =
    "the request path has an empty segment (// or a trailing /)";
  readonly code: string = "RELAY_EMPTY_SEGMENT";
}

/** A backslash in the path, which some servers read as a `/`. */
export class RelayBackslashError extends RelayRefusal {
  static override readonly hint = "send the API's path with / between segments";
  static override readonly defaultMessage = "the request path has a backslash";
  readonly code: string = "RELAY_BACKSLASH";
}

/**
 * A percent escape a server could read as something else: an encoded `/` or `\` (`%2f`,
 * `%5c`), an encoded `%` (read again, `%252e` is `.`), a control character, or a `%` not
 * followed by two hex digits.
 */
export class RelayEscapeError extends RelayRefusal {
  static override readonly hint = "send the API's path without percent escapes";
  static override readonly defaultMessage =
    "the request path has a percent escape of a separator, of %, of a control character, or a broken one";
  readonly code: string = "RELAY_ESCAPE";
}

/** A fragment (`#…`): a client never sends one, so it is a way to confuse the next server. */
export class RelayFragmentError extends RelayRefusal {
  static override readonly hint = "send the path and query without a fragment";
  static override readonly defaultMessage = "the request target has a fragment (#)";
  readonly code: string = "RELAY_FRAGMENT";
}

/** A space, a control character or a byte outside ASCII in the request target. */
export class RelayTargetCharacterError extends RelayRefusal {
  static override readonly hint =
    "percent-encode such characters in the query; the path never needs them";
  static override readonly defaultMessage =
    "the request target has a space, a control character or a byte outside ASCII";
  readonly code: string = "RELAY_TARGET_CHARACTER";
}

/** A well-formed path that is not one of the API's own: the relay forwards the model API only. */
export class RelayPathNotAllowedError extends RelayRefusal {
  readonly code: string = "RELAY_PATH_NOT_ALLOWED";
  override readonly status = 404;
  override readonly type = "not_found_error";
}

/** A path on the API's list, asked for with a method the list does not give it. */
export class RelayMethodNotAllowedError extends RelayRefusal {
  readonly code: string = "RELAY_METHOD_NOT_ALLOWED";
  override readonly status = 405;
  /** The methods the path takes, for the answer's Allow header. */
  readonly allow: readonly string[];
  constructor(message: string, options: WardenErrorOptions & { allow: readonly string[] }) {
    super(message, options);
    this.allow = options.allow;
  }
}

/** The API upstream refused the host's credential (HTTP 401 or 403): no retry will mend it. */
export class ApiKeyRejectedError extends WardenError {
  readonly code: string = "API_KEY_REJECTED";
  readonly exitClass = "operational";
}

/** Nothing answers at the API upstream's address (connection refused, unknown name). */
export class ApiUnreachableError extends WardenError {
  readonly code: string = "API_UNREACHABLE";
  readonly exitClass = "operational";
}

/** A failure of the API upstream that ends a task at once instead of being retried. */
export type UpstreamFailure = ApiKeyRejectedError | ApiUnreachableError;

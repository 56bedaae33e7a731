// The errors of the network gate: each has a stable code and a hint.
import { WardenError, type WardenErrorOptions } from "../protocol/index.js";

/** An entry of the allow list (from --allow or a preset) that warden cannot read. */
export class BadAllowEntryError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_ALLOW_ENTRY", message, {
      hint:
        "write HOST (port 443), HOST:PORT, *.DOMAIN[:PORT], an IP address such as " +
        "127.0.0.1:8443 or [::1]:8443, or a CIDR such as 10.0.0.0/8:443",
      ...options,
    });
  }
}

/** A preset name that is not in the table of presets. */
export class UnknownPresetError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("UNKNOWN_PRESET", message, options);
  }
}

/** Settings of the API relay it cannot start with: a bad upstream URL, a missing key. */
export class BadRelaySettingError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_RELAY_SETTING", message, options);
  }
}

/** A socket directory whose paths are too long for a unix socket, or that is not private. */
export class EgressDirError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("EGRESS_DIR", message, options);
  }
}

/**
 * A request to the API relay that it refuses before anything goes upstream. `status` is the
 * HTTP status of the answer and `type` the Anthropic and OpenAI error type it carries; the
 * answer itself is in the error shape of the API the relay speaks.
 */
export abstract class RelayRefusal extends WardenError {
  abstract readonly status: number;
  abstract readonly type: string;
}

/** A request target that is not a path: absolute-form (`http://host/…`), authority-form or `*`. */
export class RelayTargetFormError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super("RELAY_TARGET_FORM", "the request target is not a path", {
      hint: "send the path alone (/v1/messages), as a client given the relay's base URL does",
      ...options,
    });
  }
}

/** A `.` or `..` segment, written out or percent-encoded (`%2e`, `%2E.`, …). */
export class RelayDotSegmentError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super("RELAY_DOT_SEGMENT", "the request path has a . or .. segment", {
      hint: "send the API's path as it is, without . or .. segments",
      ...options,
    });
  }
}

/** An empty segment: `//` anywhere in the path, or a path that ends with `/`. */
export class RelayEmptySegmentError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super("RELAY_EMPTY_SEGMENT", "the request path has an empty segment (// or a trailing /)", {
      hint: "send the API's path as it is, with one / between segments",
      ...options,
    });
  }
}

/** A backslash in the path, which some servers read as a `/`. */
export class RelayBackslashError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super("RELAY_BACKSLASH", "the request path has a backslash", {
      hint: "send the API's path with / between segments",
      ...options,
    });
  }
}

/**
 * A percent escape a server could read as something else: an encoded `/` or `\` (`%2f`,
 * `%5c`), an encoded `%` (read again, `%252e` is `.`), a control character, or a `%` not
 * followed by two hex digits.
 */
export class RelayEscapeError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super(
      "RELAY_ESCAPE",
      "the request path has a percent escape of a separator, of %, of a control character, or a broken one",
      { hint: "send the API's path without percent escapes", ...options },
    );
  }
}

/** A fragment (`#…`): a client never sends one, so it is a way to confuse the next server. */
export class RelayFragmentError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super("RELAY_FRAGMENT", "the request target has a fragment (#)", {
      hint: "send the path and query without a fragment",
      ...options,
    });
  }
}

/** A space, a control character or a byte outside ASCII in the request target. */
export class RelayTargetCharacterError extends RelayRefusal {
  readonly status = 400;
  readonly type = "invalid_request_error";
  constructor(options: WardenErrorOptions = {}) {
    super(
      "RELAY_TARGET_CHARACTER",
      "the request target has a space, a control character or a byte outside ASCII",
      {
        hint: "percent-encode such characters in the query; the path never needs them",
        ...options,
      },
    );
  }
}

/** A well-formed path that is not one of the API's own: the relay forwards the model API only. */
export class RelayPathNotAllowedError extends RelayRefusal {
  readonly status = 404;
  readonly type = "not_found_error";
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("RELAY_PATH_NOT_ALLOWED", message, options);
  }
}

/** A path on the API's list, asked for with a method the list does not give it. */
export class RelayMethodNotAllowedError extends RelayRefusal {
  readonly status = 405;
  readonly type = "invalid_request_error";
  /** The methods the path takes, for the answer's Allow header. */
  readonly allow: readonly string[];
  constructor(message: string, allow: readonly string[], options: WardenErrorOptions = {}) {
    super("RELAY_METHOD_NOT_ALLOWED", message, options);
    this.allow = allow;
  }
}

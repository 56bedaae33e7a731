// The errors of `warden serve`: each has a stable code and a hint.
import { WardenError } from "../protocol/index.js";

/** A --listen value that is not ADDRESS:PORT. */
export class BadListenError extends WardenError {
  static override readonly hint = "write ADDRESS:PORT, such as 127.0.0.1:7420 or [::1]:7420";
  readonly code: string = "BAD_LISTEN";
  readonly exitClass = "usage";
}

/** A non-loopback address without the flag that says the user means it. */
export class NotLoopbackError extends WardenError {
  static override readonly hint =
    "the dashboard has no TLS: pass --public to listen beyond this machine anyway, behind a TLS proxy";
  readonly code: string = "NOT_LOOPBACK";
  readonly exitClass = "usage";
}

/** The token file exists but is not one warden wrote: wrong owner, mode, link or size. */
export class WebTokenError extends WardenError {
  static override readonly hint = "remove the file and run `warden serve --rotate-token`";
  readonly code: string = "WEB_TOKEN";
  readonly exitClass = "operational";
}

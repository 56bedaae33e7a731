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

// The config files' refusals: one class per kind, a stable code, the hint of what to do.
import { WardenError } from "../protocol/index.js";

/**
 * A config file warden cannot use: not YAML, not a mapping, an unknown key, a value of the wrong
 * kind, too big, or a link. The message names the file and the key.
 */
export class BadConfigError extends WardenError {
  static override readonly hint =
    'fix that key, or move the file aside; docs/cli.md ("Config files") lists every key';
  readonly code: string = "BAD_CONFIG";
  readonly exitClass = "usage";
}

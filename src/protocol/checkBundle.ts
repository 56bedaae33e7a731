// The check of a bundle of changes against the commit the host sent: only a bundle that builds
// on that commit and carries the task branch alone may reach git.
import type { BundleHeader } from "./bundleHeader.js";
import { BadBundleError } from "./errors.js";
import { TASK_BRANCH } from "./names.js";
import { quote } from "./quote.js";

const OID_LENGTH = { sha1: 40, sha256: 64 } as const;

function fail(message: string): BadBundleError {
  return new BadBundleError(message, {
    hint: "the sandbox sent a bundle that does not build on the commit warden sent; see the guest log",
  });
}

/**
 * Checks a bundle header against `base`, the start commit the host computed itself: the refs
 * are exactly TASK_BRANCH and the one prerequisite is `base`. Returns the head the bundle claims
 * for TASK_BRANCH. Throws BadBundleError.
 *
 * A bundle of `base..head` where head descends from base always names base as its prerequisite,
 * so a bundle with none carries a history that does not build on base (the agent rewrote it),
 * and is refused before git reads it.
 */
export function checkBundle(header: BundleHeader, base: string): string {
  const length = OID_LENGTH[header.objectFormat];
  if (base.length !== length || !/^[0-9a-f]+$/.test(base)) {
    throw fail(`the bundle is ${header.objectFormat} but the base ${quote(base)} is not`);
  }
  if (header.prerequisites.length === 0) {
    throw fail(`the bundle does not build on the base ${base}: its history was rewritten`);
  }
  for (const prerequisite of header.prerequisites) {
    if (prerequisite !== base) {
      throw fail(`the bundle needs ${quote(prerequisite)}, which is not the base ${base}`);
    }
  }
  const head = header.refs.get(TASK_BRANCH);
  for (const name of header.refs.keys()) {
    if (name !== TASK_BRANCH) throw fail(`the bundle carries the ref ${quote(name)}`);
  }
  if (head === undefined) throw fail(`the bundle does not carry ${TASK_BRANCH}`);
  return head;
}

// Which host uid a sandbox's processes are: never root, whatever uid warden runs as.
import { BadSandboxIdentityError } from "./errors.js";
import { SANDBOX_LIMITS } from "./limits.js";

/** The variable that names a dedicated sandbox uid (and gid) when warden runs as root. */
export const SANDBOX_UID_VARIABLE = "WARDEN_SANDBOX_UID";

/**
 * The host user a sandbox runs as.
 * - `dedicated`: warden runs as root and drops to this uid before bubblewrap starts, so the
 *   kernel's checks against the global uid (every file of /proc/sys, files left on the disk)
 *   see an unprivileged user.
 * - `own`: warden runs as an ordinary user, and the sandbox is that user, as any program the
 *   user runs is.
 */
export interface SandboxIdentity {
  kind: "dedicated" | "own";
  uid: number;
  gid: number;
}

export interface IdentityFacts {
  processUid: number;
  processGid: number;
  /** The value of WARDEN_SANDBOX_UID, if set. */
  configured: string | undefined;
}

/** The largest uid accepted: uids of 2^31 and above are read as negative by some tools. */
const MAX_ID = 2 ** 31 - 2;

function parseId(text: string, what: string): number {
  if (!/^\d{1,10}$/.test(text)) {
    throw new BadSandboxIdentityError(
      `${SANDBOX_UID_VARIABLE} has a ${what} that is not a number: ${JSON.stringify(text)}`,
      { hint: `set ${SANDBOX_UID_VARIABLE}=UID or UID:GID, e.g. ${SANDBOX_LIMITS.dedicatedUid}` },
    );
  }
  const id = Number(text);
  if (id === 0 || id > MAX_ID) {
    throw new BadSandboxIdentityError(
      `${SANDBOX_UID_VARIABLE} names the ${what} ${id}, which a sandbox may not have`,
      {
        hint: `use an unprivileged id from 1 to ${MAX_ID} that no user of this machine has, e.g. ${SANDBOX_LIMITS.dedicatedUid}`,
      },
    );
  }
  return id;
}

/** Pure: the sandbox's host identity from the facts of this process and its configuration. */
export function sandboxIdentity(facts: IdentityFacts): SandboxIdentity {
  const configured = facts.configured?.trim();
  if (facts.processUid !== 0) {
    if (configured !== undefined && configured !== "") {
      const [uid] = configured.split(":");
      if (uid !== String(facts.processUid)) {
        throw new BadSandboxIdentityError(
          `${SANDBOX_UID_VARIABLE} asks for uid ${uid ?? ""}, but warden runs as uid ${facts.processUid} and cannot switch users`,
          {
            hint: `unset ${SANDBOX_UID_VARIABLE} (sandboxes then run as your own uid), or run warden as root to give them a dedicated uid`,
          },
        );
      }
    }
    return { kind: "own", uid: facts.processUid, gid: facts.processGid };
  }
  if (configured === undefined || configured === "") {
    return {
      kind: "dedicated",
      uid: SANDBOX_LIMITS.dedicatedUid,
      gid: SANDBOX_LIMITS.dedicatedUid,
    };
  }
  const [uidText = "", gidText, ...rest] = configured.split(":");
  if (rest.length > 0) {
    throw new BadSandboxIdentityError(
      `${SANDBOX_UID_VARIABLE} is not UID or UID:GID: ${JSON.stringify(configured)}`,
      { hint: `set ${SANDBOX_UID_VARIABLE}=UID or UID:GID` },
    );
  }
  const uid = parseId(uidText, "uid");
  const gid = gidText === undefined ? uid : parseId(gidText, "gid");
  return { kind: "dedicated", uid, gid };
}

/** The identity of this process's sandboxes, from its own ids and environment. */
export function probeSandboxIdentity(env: NodeJS.ProcessEnv = process.env): SandboxIdentity {
  return sandboxIdentity({
    processUid: process.getuid?.() ?? 0,
    processGid: process.getgid?.() ?? 0,
    configured: env[SANDBOX_UID_VARIABLE],
  });
}

/** One line for `warden doctor` and the docs. */
export function describeIdentity(identity: SandboxIdentity): string {
  return identity.kind === "dedicated"
    ? `sandboxes run as the dedicated host uid ${identity.uid} (gid ${identity.gid}), never root`
    : `sandboxes run as your own uid ${identity.uid}`;
}

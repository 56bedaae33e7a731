// What the runner gives its agent step: the task, where it runs, and the runner's own means.
import type { PhaseTrace } from "../lang/index.js";
import type { WorkspaceCheckpoint } from "./checkpointGit.js";
import type { Identity } from "./gitSteps.js";
import type { MessageFilePlaces } from "./messageFiles.js";
import type { Share } from "./readShare.js";

export interface AgentStepInput {
  readonly share: Share;
  readonly workspace: string;
  /** Where the agent runs: the workspace, or a directory in it (agentDirectory.ts). */
  readonly agentDir?: string;
  readonly scratch: string;
  readonly metadataUrl: string;
  /** The proxy and relay variables for the agent (see egressForwarding.ts). */
  readonly egressEnv: Readonly<Record<string, string>>;
  /** The relay forwarder's base URL, when the host gave a relay. */
  readonly relayUrl?: string;
  /** The runner's own environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agentEnv: readonly string[];
  readonly ownPidNamespace: boolean;
  readonly killGraceMs: number;
  /** The directory of the host's sockets; the channel is control.sock there, when present. */
  readonly sockets: string | undefined;
  readonly channelTimeoutMs: number;
  readonly stop: AbortSignal;
  readonly progress: (line: string) => void;
  /** Where the files sent with messages come from and go (messageFiles.ts). */
  readonly messageFiles?: MessageFilePlaces;
  /**
   * What checkpoints and resumes need: the share's directory (where a checkpoint to resume from
   * is), the task's own repository, its base and git's environment. Absent: none are taken.
   */
  readonly checkpoints?: {
    readonly shareDir: string;
    readonly workspace: string;
    readonly base: string;
    readonly identity: Identity;
    readonly gitEnv: Readonly<Record<string, string>>;
    /**
     * The workspace part of the last checkpoint, once the runner has finished the workspace's
     * git after the agent (checkpointGit.ts, finishedCheckpoint). Absent when the last checkpoint
     * must be taken before that finishing (a debug hold), when it takes the workspace itself.
     */
    readonly finished?: Promise<WorkspaceCheckpoint | undefined>;
  };
  /** Where the agent's run is timed when the host asked for a trace. */
  readonly trace?: PhaseTrace;
}

// The agent's session across attaches: the checkpoints' connection and Checkpointer while the
// agent runs, and, for an attach that resumes, the share's session file put back where the agent
// looks for it, with the message its first run begins with.
import { existsSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { AgentAdapter, AgentResume } from "../agents/index.js";
import { errorMessage } from "../lang/index.js";
import {
  CHECKPOINT_SHARE_FILES,
  INTERRUPTED_NOTE,
  SUSPENDED_NOTE,
  type ResumeReason,
} from "../protocol/index.js";
import type { AgentStepInput } from "./agentStepInput.js";
import type { WorkspaceCheckpoint } from "./checkpointGit.js";
import { Checkpointer } from "./checkpointer.js";
import { AgentStartError } from "./errors.js";
import { findSessionFile } from "./findSessionFile.js";
import { HostChannel } from "./hostChannel.js";
import { GUEST_CHECKPOINT_LIMITS } from "./limits.js";

/**
 * Puts the share's session file back for an attach that resumes one, and returns how the first
 * run resumes it; undefined when the attach resumes no session (or the agent keeps none, when it
 * starts afresh on the restored workspace, and says so).
 */
export async function placeSession(
  input: AgentStepInput,
  adapter: AgentAdapter,
  home: string,
): Promise<AgentResume | undefined> {
  const resume = input.share.settings.resume;
  const shareDir = input.checkpoints?.shareDir;
  if (resume?.sessionId === undefined || shareDir === undefined) return undefined;
  const from = join(shareDir, CHECKPOINT_SHARE_FILES.session);
  const cwd = input.agentDir ?? input.workspace;
  const place = adapter.sessions?.place(home, cwd, resume.sessionId);
  if (place === undefined || !existsSync(from)) {
    input.progress(`the ${adapter.name} agent's session cannot be resumed: it starts a new one`);
    return undefined;
  }
  for (const file of [...place.files, { path: place.path }]) {
    if (!file.path.startsWith(`${home}/`)) {
      throw new AgentStartError(`the agent's session file ${file.path} is outside its home`);
    }
  }
  for (const file of place.files) {
    await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
    await writeFile(file.path, file.text, { mode: 0o600 });
  }
  await mkdir(dirname(place.path), { recursive: true, mode: 0o700 });
  await copyFile(from, place.path);
  input.progress(`resuming the agent's session ${resume.sessionId} (${resume.reason})`);
  return { sessionId: resume.sessionId, message: resumeMessage(resume.reason, input.share.prompt) };
}

/** The first message of a resumed session: a note of why it resumes, or the continuation's prompt. */
function resumeMessage(reason: ResumeReason, prompt: string): string {
  switch (reason) {
    case "interrupted":
      return INTERRUPTED_NOTE;
    case "suspended":
      return SUSPENDED_NOTE;
    case "continued":
      return prompt;
  }
}

/** The checkpoints of a run, on a connection of their own, and how to end them. */
export interface Checkpoints {
  readonly boundary: () => void;
  /** The runner closed the agent's input: its exit is near (Checkpointer.ending). */
  readonly ending: () => void;
  /** The agent has exited: a checkpoint in progress finishes before its leftovers are stopped. */
  readonly settle: () => Promise<void>;
  /**
   * The agent has exited: the last checkpoint, then the connection closed. `finished` is the
   * workspace part that finishing the workspace's git makes (Checkpointer.final).
   */
  readonly finish: (finished?: Promise<WorkspaceCheckpoint | undefined>) => Promise<void>;
}

/** Opens the checkpoints' connection; undefined when there is no host or it cannot be reached. */
export async function startCheckpoints(
  input: AgentStepInput,
  socket: string | undefined,
  adapter: AgentAdapter,
  session: () => { home: string; id: string | undefined },
  warn: (text: string) => void,
): Promise<Checkpoints | undefined> {
  const setup = input.checkpoints;
  if (socket === undefined || setup === undefined) return undefined;
  let channel: HostChannel;
  try {
    channel = await HostChannel.open(socket, { requestMs: input.channelTimeoutMs });
  } catch (error) {
    warn(`no checkpoints are taken: ${errorMessage(error)}`);
    return undefined;
  }
  const cwd = input.agentDir ?? input.workspace;
  const checkpointer = new Checkpointer({
    channel,
    repo: {
      workspace: setup.workspace,
      repo: join(input.scratch, "checkpoints.git"),
      base: setup.base,
      identity: setup.identity,
    },
    gitEnv: setup.gitEnv,
    scratch: input.scratch,
    sessionFile: async () => {
      const { home, id } = session();
      const search = id === undefined ? undefined : adapter.sessions?.find(home, cwd, id);
      if (id === undefined || search === undefined) return undefined;
      const path = await findSessionFile(search);
      return path === undefined ? undefined : { id, path };
    },
    keepsSession: adapter.sessions !== undefined,
    progress: input.progress,
    warn,
    stop: input.stop,
    ...(input.trace === undefined ? {} : { trace: input.trace }),
  });
  // An agent that keeps a session is checkpointed at its end at the latest.
  if (adapter.sessions !== undefined) checkpointer.prepare();
  // A command has no turns: a timer stands in for them.
  const timer =
    adapter.liveOutput === true
      ? setInterval(() => {
          checkpointer.boundary();
        }, GUEST_CHECKPOINT_LIMITS.commandIntervalMs)
      : undefined;
  timer?.unref();
  return {
    boundary: () => {
      checkpointer.boundary();
    },
    ending: () => {
      checkpointer.ending();
    },
    settle: () => checkpointer.settle(),
    finish: async (finished) => {
      clearInterval(timer);
      try {
        await checkpointer.final(finished);
      } finally {
        channel.close();
      }
    },
  };
}

// warden/guest: the runner inside the sandbox. `main.ts` is the `warden-guest` command around
// `runTask` (runTask.ts, which tests run in process); no other folder imports the runner, so its
// face is its error classes alone.
export {
  UsageError,
  GitError,
  GitDeadlineError,
  HistoryRewrittenError,
  BadChangesError,
  AgentStartError,
  StoppedError,
  HostChannelError,
  ChannelRefusedError,
  SetupFailedError,
  SetupTimeoutError,
  InsidePathError,
  CheckpointRestoreError,
} from "./errors.js";

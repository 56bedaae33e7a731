// Every bound and timing of the store, in one place, each with the reason it has the value it has.
import { LIMITS } from "../protocol/index.js";

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const STORE_LIMITS = {
  /** Messages a task can receive over its whole life: an inbox is a steering wheel, not a queue. */
  inboxMessages: 16,
  /** The smallest message body: an empty message says nothing and is almost always a bug. */
  messageMinBytes: 1,
  /** The largest message body: room for a long instruction or a pasted file, not a data set. */
  messageMaxBytes: 256 * KiB,
  /**
   * Files sent with one message, as the contract bounds them. Sixteen messages of 4 MiB bound
   * what a task's inbox keeps on disk to 64 MiB.
   */
  messageFiles: LIMITS.messageFiles,
  messageFilesBytes: LIMITS.messageFilesBytes,
  messageFileNameBytes: LIMITS.messageFileNameBytes,
  /** Replies and task summaries shown in lists are cut here, at a character boundary. */
  summaryBytes: 4 * KiB,
  /** The prompt, as the contract bounds it: a task description, not a data set. */
  promptBytes: LIMITS.promptBytes,
  /** The host's opaque settings object in spec.json, serialised; the share's task.json is as small. */
  settingsBytes: LIMITS.settingsBytes,
  /** repo and base are paths and commit names, never documents. */
  specTextBytes: 4 * KiB,
  /** A task's title in lists: the prompt's first line, cut so 10,000 of them stay small. */
  titleBytes: 256,
  /** How many labels a task may carry, and how long a value may be. */
  labels: 32,
  labelValueBytes: 256,
  /** One event line, newline excluded: events are progress, not payloads. */
  eventBytes: 32 * KiB,
  /** events.jsonl as a whole: a runaway agent must not fill the disk through its progress log. */
  eventsFileBytes: 32 * MiB,
  /** An event type: a short name such as `tool_use`. */
  eventTypeBytes: 64,
  /** The error text and the host's details object in terminal.json. */
  terminalErrorBytes: 16 * KiB,
  terminalDetailsBytes: 64 * KiB,
  /** A task with no deadline of its own gets this one: an unattended task must end. */
  defaultDeadlineMs: 1 * HOUR,
  /** The furthest deadline a task may have; further is a typo or a task nobody watches. */
  maxDeadlineMs: 30 * DAY,
  /** How many candidates an ambiguous id error names before it says "and N more". */
  ambiguousCandidates: 10,
  /** gc's default age: a week keeps last week's work around to fetch and compare. */
  gcDefaultAgeMs: 7 * DAY,
  /** The shortest id prefix that resolves: shorter prefixes collide as soon as a few tasks exist. */
  minIdPrefix: 4,
  /**
   * The fewest characters of an id that warden shows: enough that a shown id rarely grows as
   * tasks arrive; longer only when tasks made within about a second share these characters.
   */
  shownIdChars: 8,
  /**
   * Permission prompts a task may put to a person over its life: each one waits for somebody,
   * so a task that asks more than this is not one a person can follow. Past it, the host denies.
   */
  approvalRequests: 256,
  /** Prompts waiting for an answer at once: an agent asks about one tool call at a time. */
  approvalsPending: 8,
  /** A prompt's tool name, as the agent named it. */
  approvalToolBytes: 256,
  /** What a prompt shows of the tool call: one summary line, never the whole input. */
  approvalInputBytes: 2 * KiB,
  /** The reason given with an answer: a sentence for the model, not a document. */
  approvalReasonBytes: 1 * KiB,
} as const;

export const STORE_TIMING = {
  /**
   * How long an attacher keeps retrying a non-blocking lock before it reports the task running.
   * Readers probe attach.lock by holding a shared lock for microseconds; retrying for a moment
   * keeps a probe from ever passing for a running executor.
   */
  attachRetryMs: 150,
  /** The pause between two tries of a contended lock; short, since every holder is brief. */
  lockRetryPauseMs: 3,
  /**
   * How long a loser waits for the winner's lock record before it reports an unnamed holder:
   * the winner writes it right after taking the lock, but a loaded machine can delay that.
   */
  holderRecordWaitMs: 500,
  /**
   * How long a writer waits for inbox.lock or waits.lock before giving up. Holders keep these
   * locks for one read and one atomic write, so this only trips on a stopped (not dead) process.
   */
  fileLockTimeoutMs: 10 * SECOND,
  /** The safety-net poll of a watcher while file system notifications work (they can be missed on some file systems). */
  watchSafetyPollMs: 500,
  /** The poll of a watcher when file system notifications are not available. */
  watchFallbackPollMs: 50,
  /** How long finish() waits for running children to record their terminal state. */
  childFinishWaitMs: 30 * SECOND,
  /**
   * How often a background run waiting its turn looks at the queue and the slots again: a turn
   * comes when a task of minutes ends, so a quarter second is prompt and costs a few probes.
   */
  queuePollMs: 250,
  /** Staging directories of creators that died are removed by gc after this long. */
  stagingMaxAgeMs: 1 * HOUR,
} as const;

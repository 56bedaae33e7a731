// Every size and count the host-guest contract bounds, in one place, with the reason.

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const LIMITS = {
  /** The agent's stdout. Long agent sessions are big; past this the guest cuts and the host refuses. */
  transcriptBytes: 256 * MiB,
  /** The agent's stderr: diagnostics only, so a small cap keeps a chatty agent from filling disks. */
  logBytes: 1 * MiB,
  /** The bundle of changes. A task that changes more than this is not a code change a person reviews. */
  changesBytes: 1 * GiB,
  /** result.json: a small record; anything bigger is an attack on the host's parser. */
  resultBytes: 1 * MiB,
  /** The agent's last stdout line is kept in the result only when it is a JSON object this small. */
  agentResultBytes: 64 * KiB,
  /**
   * Files sent with one message (`send --file`), their total size and a name's length: inputs an
   * instruction points at (a log, a screenshot, a spec), not a data set, which belongs in the
   * repository.
   */
  messageFiles: 8,
  messageFilesBytes: 4 * MiB,
  messageFileNameBytes: 128,
  /** The prompt: a task description, not a data set. */
  promptBytes: 1 * MiB,
  /** task.json on the share: settings only. */
  settingsBytes: 64 * KiB,
  /** history.json on the share: one path and one object id. */
  historyInputBytes: 8 * KiB,
  /** A bundle header may list at most this many lines (refs, prerequisites, capabilities). */
  bundleHeaderLines: 1024,
  /** One bundle header line, newline excluded. Ref names and oids are far shorter. */
  bundleHeaderLineBytes: 4096,
  /** One labelled log line; text beyond it is cut so one line can never flood a terminal. */
  logLineBytes: 4 * KiB,
  /** A log label such as `agent` or `guest`: a short word of warden's, never sandbox text. */
  logLabelBytes: 32,
  /**
   * Zero bytes a results archive may carry after result.json: tar ends with two zero blocks and
   * pads to its record size (10 KiB by default), and more than this is a producer stalling the host.
   */
  archiveTrailerBytes: 64 * KiB,
  /** Hostile text quoted inside an error message, after cleaning: enough to recognise it. */
  quotedTextBytes: 200,
  /** A warning or error string inside result.json, after cleaning. */
  resultTextBytes: 16 * KiB,
  /** How many warnings a result may carry. */
  resultWarnings: 64,
  /** The code beside the error in result.json: warden's codes are short upper-case words. */
  errorCodeBytes: 64,
  /** Timeout of the agent: 30 days in seconds, the longest deadline a task may have. */
  timeoutSeconds: 30 * 24 * 60 * 60,
  /** The agent's turn count bound; larger numbers are a typo, not a plan. */
  maxTurns: 100_000,
  /** A budget in US dollars; larger is a typo. */
  maxBudgetUSD: 1_000_000,
  /** model, gitName and gitEmail: short identifiers. */
  settingTextBytes: 256,
  /**
   * The buffer a tunnel's socket queues before it stops reading the other side (its high water
   * mark). Node's 16 KiB pauses and resumes the reader for every 64 KiB read; with 256
   * connections a sandbox may hold, this bounds what one task can make the gate hold at once.
   */
  tunnelBufferBytes: 256 * KiB,
  /** The pool a tunnel's dialed socket reads into; one read takes at most its free tail. */
  tunnelReadPoolBytes: 512 * KiB,
  /** A pool with less free than this is replaced: a smaller read would cost a system call more. */
  tunnelReadMinBytes: 64 * KiB,
} as const;

/** Per-result-file limits, the table of DESIGN.md "The contract". */
export const RESULT_LIMITS = {
  "transcript.jsonl": LIMITS.transcriptBytes,
  "agent.log": LIMITS.logBytes,
  "changes.bundle": LIMITS.changesBytes,
  "result.json": LIMITS.resultBytes,
} as const;

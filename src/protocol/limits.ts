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
  /**
   * Repositories bound to one task beside its own (--workspace). Each is cloned, finished and
   * checked on its own; a piece of work that spans more than this is several tasks.
   */
  workspaces: 16,
  /** A workspace's name: a directory name and part of a results file name, so short. */
  workspaceNameBytes: 32,
  /** workspaces.json on the share: a name, a commit and two paths per workspace. */
  workspacesInputBytes: 160 * KiB,
  /**
   * Every bundle of changes of one task together (its own and its workspaces'): they are
   * reviewed together, so the bound of one is the bound of all.
   */
  allChangesBytes: 1 * GiB,
} as const;

/** Per-result-file limits, the table of DESIGN.md "The contract". */
export const RESULT_LIMITS = {
  "transcript.jsonl": LIMITS.transcriptBytes,
  "agent.log": LIMITS.logBytes,
  "changes.bundle": LIMITS.changesBytes,
  "result.json": LIMITS.resultBytes,
} as const;

/**
 * The setup step's contract: what task.json may say of it, and the snapshot of the workspace
 * that the runner sends the host after it and the host hands back on a later task.
 */
export const SETUP_LIMITS = {
  /** Commands in one setup: a handful of install steps, not a script in pieces. */
  commands: 32,
  /** One command, run by `sh -c`: a line, not a program. */
  commandBytes: 16 * KiB,
  /** A setup goal: a prompt, bounded like the agent's appended system prompt. */
  goalBytes: 64 * KiB,
  /** The variables given to setup alone, as many as the agent's. */
  envNames: 64,
  /** The longest setup: a day, far past any install; the default is 10 minutes. */
  timeoutSeconds: 24 * 60 * 60,
  /**
   * The snapshot's tar, as the host receives and stores it: node_modules of a large project is
   * a few hundred MiB; past this a cache costs more disk than the setup costs time.
   */
  snapshotBytes: 2 * GiB,
  /** Entries in one snapshot: a large node_modules holds some 100k files. */
  snapshotEntries: 200_000,
  /** One entry's path inside the snapshot: Linux's PATH_MAX. */
  snapshotPathBytes: 4096,
  /** Paths setup deleted, listed in the snapshot's deletions.json. */
  snapshotDeletions: 10_000,
  /** deletions.json itself: the list above at its longest paths would be far bigger than needed. */
  snapshotDeletionsBytes: 4 * MiB,
  /** One chunk of the snapshot over the channel, before base64: well under a request line. */
  snapshotChunkBytes: 256 * KiB,
  /** The values of setup's variables together: they cross the channel in one answer. */
  envBytes: 1 * MiB,
  /** Lines of setup output in one channel request. */
  outputLinesPerRequest: 64,
  /** One line of setup output as it crosses the channel: longer lines are cut. */
  outputLineBytes: 4 * KiB,
} as const;

/** The MCP servers and skills a task gives its agent (mcpServers.ts). */
export const MCP_LIMITS = {
  /** Servers of one task: a few tools an agent uses, not a catalogue. */
  servers: 32,
  /**
   * All of a task's servers as JSON: they travel in task.json (settingsBytes), and must leave
   * room there for the rest of the settings.
   */
  serversBytes: 32 * KiB,
  /** One command, argument, URL, variable's value or header's value. */
  textBytes: 4 * KiB,
  /** A server's arguments. */
  args: 64,
  /** A server's variables or headers. */
  mapEntries: 64,
  /** The skills of one task: each is a folder the agent is told about in every request. */
  skills: 64,
  /**
   * All the files of a task's skills together: instructions and a few scripts or templates. They
   * are copied into the share and again into the agent's home, so the bound is the copies'.
   */
  skillsBytes: 16 * MiB,
  /** Files and folders of all the skills together: a walk over them must stay short. */
  skillsEntries: 1024,
  /** How deep folders go below the skills directory (a skill's folder is depth 1). */
  skillsDepth: 8,
} as const;

/** Stepping inside a running task: `warden exec`, `shell`, `cp` and `stop` (inside.ts). */
export const INSIDE_LIMITS = {
  /**
   * One frame's payload: a pipe's or a pty's read is at most this, so a session never needs a
   * bigger one, and the reader never holds more than one frame of a hostile peer.
   */
  frameBytes: 64 * KiB,
  /** The JSON of an open request or an exit or error report: a command line, not a script. */
  controlBytes: 16 * KiB,
  /** Arguments of one `exec` command line. */
  argv: 256,
  /** A path inside the workspace for `cp`, as Linux bounds a path. */
  pathBytes: 4 * KiB,
  /** One file `cp` moves either way: a log or a build output, not a disk image. */
  copyBytes: 256 * MiB,
  /**
   * Everything a session's command writes: a shell left open streams for hours at most what a
   * person reads; past this the host ends the session, so a flood costs a bounded amount.
   */
  sessionOutputBytes: 1024 * MiB,
  /** Sessions at once in one task, each on a connection of its own, plus one idle spare. */
  sessions: 4,
  /** How long a connection from the sandbox may take to say hello before it is closed. */
  helloMs: 5_000,
  /** A terminal's size, in cells: anything larger is not a screen. */
  terminalCells: 10_000,
} as const;

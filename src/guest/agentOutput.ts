// The agent's transcript and log over the task's runs: a further run appends to what the earlier
// ones wrote, in the room they left, so the limits bound all the runs together.
import { join } from "node:path";
import { LIMITS, RESULT_FILES, type ResultFileName, type ResultsFile } from "../protocol/index.js";
import type { Captured } from "./captureOutput.js";

export class AgentOutput {
  readonly transcriptPath: string;
  readonly logPath: string;
  /** Bytes the runs kept in each file; undefined before a run wrote them. */
  private used: { transcriptBytes: number; logBytes: number } | undefined;
  private readonly cut = new Set<ResultFileName>();

  constructor(scratch: string) {
    this.transcriptPath = join(scratch, RESULT_FILES.transcript);
    this.logPath = join(scratch, RESULT_FILES.log);
  }

  /** The room the next run has after the earlier runs' output; undefined for the first run. */
  room(): { transcriptBytes: number; logBytes: number } | undefined {
    if (this.used === undefined) return undefined;
    return {
      transcriptBytes: Math.max(0, LIMITS.transcriptBytes - this.used.transcriptBytes),
      logBytes: Math.max(0, LIMITS.logBytes - this.used.logBytes),
    };
  }

  /** Counts what a run kept, and whether it cut a file at its limit. */
  add(transcript: Captured, log: Captured): void {
    this.used = {
      transcriptBytes: (this.used?.transcriptBytes ?? 0) + transcript.kept,
      logBytes: (this.used?.logBytes ?? 0) + log.kept,
    };
    if (transcript.truncated) this.cut.add(RESULT_FILES.transcript);
    if (log.truncated) this.cut.add(RESULT_FILES.log);
  }

  /** The files to send back: none when no run wrote them. */
  files(): ResultsFile[] {
    if (this.used === undefined) return [];
    return [
      { name: RESULT_FILES.transcript, path: this.transcriptPath },
      { name: RESULT_FILES.log, path: this.logPath },
    ];
  }

  /** The files a run cut, for the result's `truncated`. */
  truncated(): ResultFileName[] {
    return [RESULT_FILES.transcript, RESULT_FILES.log].filter((name) => this.cut.has(name));
  }
}

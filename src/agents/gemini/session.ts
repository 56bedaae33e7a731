// Where Gemini CLI (0.61) keeps a session: one JSON object a line, at
// `<GEMINI_CLI_HOME>/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl`, where
// `<project>` is a short name Gemini picks for the working directory and remembers by a
// `.project_root` file in that directory that names it. `--resume=<id>` looks through the chats
// of the working directory's project for the file whose first line names the session, and goes
// on writing to it (after starting a file of its own that holds only its preamble). So the file
// is searched for, and a kept one goes back into a project of warden's own naming, with the
// `.project_root` that makes it the working directory's.
import { join } from "node:path";
import { z } from "zod";
import { memo } from "../../lang/index.js";
import type { AgentSessions } from "../adapter.js";

/** Gemini's projects' directory under GEMINI_CLI_HOME. */
const PROJECTS_DIR = ".gemini/tmp";

/** The project a kept session goes back into, whatever the working directory is called. */
const RESTORED_PROJECT = "warden-resumed";

/** The file that says which working directory a project is. */
const PROJECT_ROOT_FILE = ".project_root";

/** The start of a session file's name; the end is the id's first 8 characters. */
const SHORT_ID_CHARS = 8;

/** The first line: the session's metadata. */
const metadataLine = memo(() => z.object({ sessionId: z.string(), projectHash: z.string() }));

/** Every later line is one of these: a message, a change of metadata, or a rewind. */
const laterLine = memo(() =>
  z.union([
    z.object({ id: z.string().min(1) }),
    z.object({ $set: z.record(z.string(), z.unknown()) }),
    z.object({ $rewindTo: z.string() }),
    metadataLine(),
  ]),
);

function fileName(sessionId: string, time: string): string {
  return `session-${time}-${sessionId.slice(0, SHORT_ID_CHARS)}.jsonl`;
}

export const geminiSessions: AgentSessions = {
  find(home, _cwd, sessionId) {
    return {
      kind: "search",
      dir: join(home, PROJECTS_DIR),
      // <project>/chats/<file>
      depth: 2,
      prefix: "session-",
      suffix: `-${sessionId.slice(0, SHORT_ID_CHARS)}.jsonl`,
    };
  },
  place(home, cwd, sessionId) {
    const project = join(home, PROJECTS_DIR, RESTORED_PROJECT);
    return {
      path: join(project, "chats", fileName(sessionId, "resumed")),
      files: [{ path: join(project, PROJECT_ROOT_FILE), text: cwd }],
    };
  },
  checkLine(line, index, sessionId) {
    if (index === 0) {
      const metadata = metadataLine().safeParse(line);
      if (!metadata.success) throw new Error("its first line is not a Gemini session's metadata");
      if (metadata.data.sessionId !== sessionId) {
        throw new Error("its metadata names another session");
      }
      return;
    }
    if (!laterLine().safeParse(line).success) {
      throw new Error(`line ${index + 1} is not a line of a Gemini session`);
    }
  },
};

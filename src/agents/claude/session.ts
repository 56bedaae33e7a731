// Where Claude Code keeps a session: `<config dir>/projects/<project>/<session id>.jsonl`, the
// project being its working directory with every character but a letter or digit made `-`.
import { join } from "node:path";
import type { AgentSessions } from "../adapter.js";
import { CLAUDE_CONFIG_DIR } from "./mcp.js";

/**
 * Claude Code names a project longer than this by a hash of its path too, which warden does not
 * reproduce: a task that runs that deep keeps no session.
 */
const PROJECT_NAME_CHARS = 200;

/** The session file of `sessionId` for a run in `cwd` with `home` as the task's home. Pure. */
export function claudeSessionFile(
  home: string,
  cwd: string,
  sessionId: string,
): string | undefined {
  const project = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (project.length > PROJECT_NAME_CHARS) return undefined;
  return join(home, CLAUDE_CONFIG_DIR, "projects", project, `${sessionId}.jsonl`);
}

/**
 * Claude Code's sessions: the file's path follows from the id, a kept one goes back there, and
 * each line is a JSON object (which the host's reading of JSON lines already holds it to).
 */
export const claudeSessions: AgentSessions = {
  find(home, cwd, sessionId) {
    const path = claudeSessionFile(home, cwd, sessionId);
    return path === undefined ? undefined : { kind: "path", path };
  },
  place(home, cwd, sessionId) {
    const path = claudeSessionFile(home, cwd, sessionId);
    return path === undefined ? undefined : { path, files: [] };
  },
  checkLine: () => undefined,
};

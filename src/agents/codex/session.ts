// Where Codex CLI (0.171) keeps a session: its rollout, one JSON object a line, at
// `$CODEX_HOME/sessions/<yyyy>/<mm>/<dd>/rollout-<yyyy-mm-ddThh-mm-ss>-<thread id>.jsonl`, the
// time being when the thread began; `codex exec resume <thread id>` finds it by the id anywhere
// under `sessions/`, but only under a name of that shape. The time is not known from the id, so
// the file is searched for, and a kept one goes back under a name with a time of warden's own.
import { join } from "node:path";
import { z } from "zod";
import { memo } from "../../lang/index.js";
import type { AgentSessions } from "../adapter.js";
import { CODEX_HOME_DIR } from "./home.js";

/** The rollouts' directory in CODEX_HOME. */
const SESSIONS_DIR = "sessions";

/** The directory levels below SESSIONS_DIR that Codex files a rollout under: year, month, day. */
const DATE_DEPTH = 3;

/** The time in a restored rollout's name: Codex takes the thread's own from its first line. */
const RESTORED_TIME = "1970-01-01T00-00-00";

/** Every line of a rollout: when, what kind, and what. */
const rolloutLine = memo(() =>
  z.object({
    timestamp: z.string().min(1).max(64),
    type: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
    payload: z.record(z.string(), z.unknown()),
  }),
);

/** The first line names the thread. */
const sessionMeta = memo(() =>
  z.object({
    type: z.literal("session_meta"),
    payload: z.object({ id: z.string() }),
  }),
);

export const codexSessions: AgentSessions = {
  find(home, _cwd, sessionId) {
    return {
      kind: "search",
      dir: join(home, CODEX_HOME_DIR, SESSIONS_DIR),
      depth: DATE_DEPTH,
      prefix: "rollout-",
      suffix: `-${sessionId}.jsonl`,
    };
  },
  place(home, _cwd, sessionId) {
    const name = `rollout-${RESTORED_TIME}-${sessionId}.jsonl`;
    return { path: join(home, CODEX_HOME_DIR, SESSIONS_DIR, name), files: [] };
  },
  checkLine(line, index, sessionId) {
    if (!rolloutLine().safeParse(line).success) {
      throw new Error(`line ${index + 1} is not a line of a Codex rollout`);
    }
    if (index === 0) {
      const meta = sessionMeta().safeParse(line);
      if (!meta.success) throw new Error("its first line is not the rollout's session_meta");
      if (meta.data.payload.id !== sessionId) {
        throw new Error("its session_meta names another thread");
      }
    }
  },
};

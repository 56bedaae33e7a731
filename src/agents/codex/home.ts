// Codex's own directory under the task's home: its CODEX_HOME, with its config and its sessions.

export const CODEX_HOME_DIR = ".codex";

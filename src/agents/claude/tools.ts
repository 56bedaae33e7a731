// What a call of each of Claude Code's tools is about: the one input field that says what it
// does. The host matches permission rules against it; events summarize a call by it.

/** The input field that says what a call of each of Claude Code's file, shell and web tools does. */
export const CLAUDE_TOOL_SUBJECT: Readonly<Record<string, string>> = {
  Bash: "command",
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "pattern",
  Grep: "pattern",
  WebFetch: "url",
  WebSearch: "query",
};

/** Fields tried in order for a tool without an entry above (an MCP tool, a newer tool). */
export const LIKELY_SUBJECT_FIELDS: readonly string[] = [
  "command",
  "file_path",
  "path",
  "pattern",
  "url",
  "query",
];

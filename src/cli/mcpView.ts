// A task's MCP servers as `show` gives them: each server's name and kind, never its command
// line, variables or headers, which may carry a token.
function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `NAME (stdio|http|sse)` for each server; undefined when the task has none. Pure. */
export function mcpServersView(servers: unknown): string[] | undefined {
  if (!isFields(servers)) return undefined;
  return Object.entries(servers).map(([name, server]) => {
    const type = isFields(server) && typeof server.type === "string" ? server.type : "stdio";
    return `${name} (${type})`;
  });
}

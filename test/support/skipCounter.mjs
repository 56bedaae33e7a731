// A test reporter that writes one line per skipped or todo test, and nothing else; scripts/test.sh
// runs it beside the spec reporter and fails a CI run whose file is not empty. It catches at run
// time whatever the suite's own check (test/suite) could not see in the source. Plain JavaScript:
// Node loads reporters without the loader hooks that `--import tsx` installs.

/**
 * `file:line: skipped|todo: name (reason)` for a test that did not run or does not count.
 * @param {{ name: string, file?: string, line?: number, skip?: string | boolean, todo?: string | boolean }} data
 * @returns {string | undefined}
 */
export function skipLine(data) {
  const how = data.skip !== undefined ? "skipped" : data.todo !== undefined ? "todo" : undefined;
  if (how === undefined) return undefined;
  const reason = data.skip ?? data.todo;
  const where = `${data.file ?? "?"}:${String(data.line ?? "?")}`;
  const why = typeof reason === "string" ? ` (${reason})` : "";
  return `${where}: ${how}: ${data.name}${why}\n`;
}

/**
 * @param {AsyncIterable<{ type: string, data: any }>} source
 * @returns {AsyncGenerator<string, void>}
 */
export default async function* skipCounter(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const line = skipLine(event.data);
    if (line !== undefined) yield line;
  }
}

// Starting a rendered command, and reading why it failed without waiting on what it left behind.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { spawnCommand, stderrUntilExit } from "../../src/sandbox/spawnCommand.js";
import { HUNG_TEST_MS, killedAtEnd, processesWith } from "./sandboxFixture.js";

/** A command as the backends render one: argv, a clean environment, no extra descriptors. */
function shellCommand(script: string) {
  return { program: "/bin/sh", args: ["-c", script], env: {}, cwd: "/", fds: [] };
}

describe("a failed start's stderr", () => {
  test(
    "a command that fails while a process it started holds its stderr open is read by its exit",
    { timeout: HUNG_TEST_MS },
    async (t) => {
      // As bwrap does when it cannot make a sandbox: a line on stderr and exit 1; here it also
      // leaves a process behind that keeps stderr open for minutes.
      const marker = killedAtEnd(t, "stderr-held");
      const spawned = await spawnCommand(
        shellCommand(
          `(exec ${process.execPath} -e "setTimeout(() => {}, 300000)" ${marker}) >/dev/null & echo "bwrap: Creating new namespace failed" >&2; exit 1`,
        ),
        { detached: false },
      );
      const text = await stderrUntilExit(spawned, 200);
      assert.equal(text.trim(), "bwrap: Creating new namespace failed");
      assert.deepEqual(await spawned.exited, { code: 1, signal: null });
      assert.equal((await processesWith(marker)).length, 1, "the holder outlived the command");
    },
  );

  test("everything a command wrote before it ended is kept, up to the bound", async () => {
    const spawned = await spawnCommand(
      shellCommand(
        'for i in 1 2 3; do echo "line $i" >&2; done; head -c 100000 /dev/zero | tr "\\0" x >&2; exit 3',
      ),
      { detached: false },
    );
    const text = await stderrUntilExit(spawned, 1_000);
    assert.match(text, /^line 1\nline 2\nline 3\nx/);
    assert.equal(text.length, 16 * 1024);
  });
});

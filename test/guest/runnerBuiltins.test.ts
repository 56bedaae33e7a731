// What of Node's own the built runner loads as it runs a task: every sandbox starts one, so a
// module loaded for nothing costs every task. node:crypto (about 5 ms of every start) is one the
// runner has no need of: its markers and names come from /dev/urandom (src/lang/randomHex.ts).
import { strict as assert } from "node:assert";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { makeTask, receivedOf, runGuest, shellAgent } from "../support/share.js";

test("the runner runs a task without loading node:crypto", async (t) => {
  const fixture = await makeTask({
    settings: { command: shellAgent('echo "made" > new.txt && git add . && git commit -qm new') },
  });
  t.after(() => fixture.cleanup());
  const report = join(fixture.root, "loaded.json");
  const preload = join(fixture.root, "report.cjs");
  await writeFile(
    preload,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(report)},
       JSON.stringify(process.moduleLoadList)));`,
  );
  const run = await runGuest(fixture, {
    wrap: ([node = "", ...rest]) => [node, "--require", preload, ...rest],
  });
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.equal(result.error, undefined);
  assert.equal(result.agentExitCode, 0);
  assert.notEqual(result.head, fixture.base, "the agent's commit came back");
  const loaded = (JSON.parse(await readFile(report, "utf8")) as string[])
    .filter((entry) => entry.startsWith("NativeModule "))
    .map((entry) => entry.slice("NativeModule ".length));
  assert.ok(loaded.includes("child_process"), "the list is the runner's: it ran git and the agent");
  assert.deepEqual(
    loaded.filter((name) => name === "crypto" || name.startsWith("internal/crypto/")),
    [],
  );
});

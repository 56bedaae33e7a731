// A runner told to stop (the sandbox is being torn down, the user cancelled) stops the agent
// the same way a timeout does and still sends what the agent made.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fetchChanges, git, makeTask, runGuest, shellAgent, receivedOf } from "../support/share.js";

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} to the runner mid-agent still yields an archive with the agent's work`, async (t) => {
    const fixture = await makeTask({
      settings: {
        command: shellAgent(
          [
            "echo one > one.txt && git add one.txt && git commit -qm 'first part'",
            "echo unfinished > two.txt",
            "touch ../agent-busy",
            "exec sleep 1000",
          ].join(" && "),
        ),
        timeoutSeconds: 600,
      },
    });
    t.after(() => fixture.cleanup());
    const busy = join(fixture.root, "agent-busy");
    const run = await runGuest(fixture, {
      args: ["--kill-grace-ms", "1000"],
      onStart: (child) => {
        void (async () => {
          while (!existsSync(busy)) await sleep(20);
          child.kill(signal);
        })();
      },
    });
    assert.equal(run.exitCode, 1, run.stderr);
    const { result } = receivedOf(run);
    assert.match(result.error ?? "", new RegExp(`stopped by ${signal}`));
    assert.equal(result.agentExitCode, 128 + 15, "the agent got SIGTERM");
    assert.equal(result.timedOut, false);
    assert.equal(result.leftovers, true);
    const head = await fetchChanges(run, "stopped");
    assert.equal(
      await git(fixture.repo, "log", "--format=%s", `${fixture.base}..${head}`),
      "warden: commit what the agent left uncommitted\nfirst part",
    );
  });
}

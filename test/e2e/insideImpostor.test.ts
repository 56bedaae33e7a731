// The agent poses as the runner on inside.sock, with real bubblewrap: it runs as the runner's
// uid, so it can connect to the socket the host hands sessions down. What it gains is what a
// hostile runner has, and no more: a frame of a kind only the host sends, or a length past the
// bound, ends its connection at once; past the sessions and a spare its connections are refused;
// a session the host hands it is the user's to judge (its output is the sandbox's word, as all
// of exec's is), recorded at both ends, and a report warden does not take ends it with warden's
// own error; and the task runs on to its end.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { INSIDE_EVENTS } from "../../src/host/index.js";
import { INSIDE_LIMITS } from "../../src/protocol/index.js";
import {
  idOf,
  NO_SYSTEM,
  runCli,
  taskEvents,
  taskWorkspace,
  until,
  workspace,
  type Workspace,
} from "./fixtures.js";

/**
 * The agent: probes inside.sock, writes what it saw to probe.json, then answers the sessions the
 * host hands its idle connections: the first with forged output and exit 0, the next with an
 * exit report that is not JSON; it ends once `release` appears.
 */
const IMPOSTOR = `
import json, os, select, socket, struct, time
P = "/run/warden/inside.sock"
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(P); return s
def frame(kind, payload=b""):
    return bytes([kind]) + struct.pack(">I", len(payload)) + payload
def closed_within(s, seconds):
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True
out = {}
s = conn(); s.sendall(frame(2, b'{"kind":"exec","argv":["id"]}'))
out["hostOnlyKindClosed"] = closed_within(s, 2)
s = conn(); s.sendall(bytes([1]) + struct.pack(">I", 1 << 30))
out["overlongClosed"] = closed_within(s, 2)
links = []
for i in range(${INSIDE_LIMITS.sessions + 6}):
    try:
        s = conn(); s.sendall(frame(1, b'{"v":1}')); links.append(s)
    except OSError:
        pass
time.sleep(1)
held = [s for s in links if not closed_within(s, 0.3)]
out["tried"] = len(links)
out["held"] = len(held)
for s in held: s.settimeout(None)
open("probe.json", "w").write(json.dumps(out))
answered = 0
bufs = {s: b"" for s in held}
while not os.path.exists("release") and held:
    ready, _, _ = select.select(held, [], [], 0.1)
    for s in ready:
        data = s.recv(65536)
        if data == b"":
            held.remove(s); continue
        bufs[s] += data
        if len(bufs[s]) >= 5 and bufs[s][0] == 2:
            answered += 1
            if answered == 1:
                s.sendall(frame(16, b"IMPOSTOR\\n") + frame(18, b'{"code":0}'))
            else:
                s.sendall(frame(18, b"not a report"))
            bufs[s] = b"-"
    open("answered", "w").write(str(answered))
`;

describe("the agent posing as the runner on inside.sock", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await ws.cleanup();
  });

  test("gets no host-only frame through, no more connections than the sessions and a spare, and a session it is handed stays bounded and recorded", async () => {
    const run = await runCli(ws.dataDir, [
      "run",
      "--detach",
      "--allow-exec",
      "--repo",
      ws.repo,
      "--prompt",
      "pose as the runner",
      "--deadline",
      "5m",
      "--",
      "python3",
      "-c",
      IMPOSTOR,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    const dir = taskWorkspace(ws.dataDir, id);
    await until(() => Promise.resolve(existsSync(join(dir, "probe.json"))), 60_000);
    const probe = JSON.parse(await readFile(join(dir, "probe.json"), "utf8")) as {
      hostOnlyKindClosed: boolean;
      overlongClosed: boolean;
      tried: number;
      held: number;
    };
    assert.equal(probe.hostOnlyKindClosed, true, "a host-only kind ends the connection at once");
    assert.equal(probe.overlongClosed, true, "a length past the bound ends it at once");
    // The runner's own idle connection holds one of the sessions and a spare.
    assert.ok(probe.held >= 1, "the host took some of its connections as idle ones");
    assert.ok(
      probe.held <= INSIDE_LIMITS.sessions,
      `it held ${probe.held} of ${probe.tried}: never more than the sessions and a spare in all`,
    );

    // The user's execs go to whichever idle connection comes first: the runner's, then the
    // agent's, once it holds the pool.
    const results = [];
    for (let i = 0; i < 2 * INSIDE_LIMITS.sessions; i++) {
      const exec = await runCli(ws.dataDir, ["exec", id, "--", "echo", "real"]);
      results.push(exec);
      const answered = existsSync(join(dir, "answered"))
        ? Number(await readFile(join(dir, "answered"), "utf8"))
        : 0;
      if (answered >= 2) break;
    }
    const forged = results.find((r) => r.stdout.includes("IMPOSTOR"));
    assert.ok(forged !== undefined, "a session was handed to the agent, which answered it");
    assert.equal(forged.code, 0);
    const refused = results.find((r) => /exit report warden does not take/.test(r.stderr));
    assert.ok(refused !== undefined, results.map((r) => r.stderr).join("\n"));
    assert.notEqual(refused.code, 0);

    await writeFile(join(dir, "release"), "");
    const wait = await runCli(ws.dataDir, ["wait", id, "--json"]);
    assert.equal(wait.code, 0, wait.stdout + wait.stderr);
    assert.equal((JSON.parse(wait.stdout) as { state: string }).state, "succeeded");
    const events = await taskEvents(ws.dataDir, id);
    const opened = events.filter((e) => e.type === INSIDE_EVENTS.opened);
    const ended = events.filter((e) => e.type === INSIDE_EVENTS.ended);
    assert.equal(opened.length, results.length, "every session handed out was recorded");
    assert.equal(ended.length, results.length, "and its end");
    assert.ok(ended.some((e) => /exit report warden does not take/.test(String(e.error))));
  });
});

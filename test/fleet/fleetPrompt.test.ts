// The foreground prompt of `run` answers a fleet task's permission requests as it answers a
// local task's: the worker's request is read from the fleet, and the answer written there.
import { after, before, describe, test } from "node:test";
import { promptApprovals } from "../../src/cli/approvalPrompt.js";
import { FleetStore } from "../../src/fleet/index.js";
import { FakeInput, until } from "../support/fakeTerminal.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

describe("the foreground prompt of a fleet's task", { skip: natsServerMissing() }, () => {
  let server: NatsServer;
  let fleet: FleetStore;
  before(async () => {
    server = await NatsServer.start();
    fleet = await FleetStore.open({ servers: server.url, env: {} });
  });
  after(async () => {
    await fleet.close();
    await server.stop();
  });

  test("asks about the worker's request and writes the person's answer to the fleet", async () => {
    const { id } = await fleet.create({ prompt: "prompt", settings: { version: 1 } });
    const held = await fleet.attach(id);
    const said: string[] = [];
    const input = new FakeInput();
    const stop = new AbortController();
    const prompting = promptApprovals({
      tasks: fleet,
      id,
      input,
      say: (text) => said.push(text),
      signal: stop.signal,
    });
    const request = await held.askApproval({ tool: "Bash", input: "make deploy" });
    await held.appendEvent("approval_asked", {
      request: request.n,
      tool: "Bash",
      summary: "make deploy",
    });
    await until(() => said.some((s) => s.startsWith("request 1: allow Bash: make deploy?")));
    input.type("n");
    await until(async () => (await fleet.approvals(id))[0]?.decision === "deny");
    stop.abort();
    await prompting;
    await held.finish({ state: "succeeded" });
  });
});

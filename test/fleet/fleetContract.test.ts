// The fleet's JetStream store against the task store's contract, on a real nats-server.
import { after, before } from "node:test";
import { FleetStore } from "../../src/fleet/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { storeContract } from "../store/contract/storeContract.js";

const skip = natsServerMissing();
let server: NatsServer | undefined;
before(async () => {
  if (skip === false) server = await NatsServer.start();
});
after(async () => {
  await server?.stop();
});

storeContract(
  "JetStream",
  async (clock) => {
    if (server === undefined) throw new Error("nats-server did not start");
    const store = await FleetStore.open({ servers: server.url, env: {}, now: clock.now });
    return { store, close: () => store.close() };
  },
  { skip },
);

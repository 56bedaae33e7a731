// The test servers pick free ports before they start, and another process may take one between:
// a start that found its port taken is made again on other ports, and any other failure stands.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { onFreePorts } from "../support/natsProcess.js";

const TAKEN = "nats-server did not start: listen tcp 127.0.0.1:39401: bind: address already in use";

test("a start whose port was taken meanwhile is made again, and its server is handed back", async () => {
  let starts = 0;
  const server = await onFreePorts(() => {
    starts++;
    return starts === 1 ? Promise.reject(new Error(TAKEN)) : Promise.resolve("the server");
  });
  assert.equal(server, "the server");
  assert.equal(starts, 2);
});

test("a start that fails for another reason is not made again", async () => {
  let starts = 0;
  await assert.rejects(
    onFreePorts(() => {
      starts++;
      return Promise.reject(new Error("nats-server is not installed"));
    }),
    /not installed/,
  );
  assert.equal(starts, 1);
});

test("a port taken at every start fails after three of them", async () => {
  let starts = 0;
  await assert.rejects(
    onFreePorts(() => {
      starts++;
      return Promise.reject(new Error(TAKEN));
    }),
    /address already in use/,
  );
  assert.equal(starts, 3);
});

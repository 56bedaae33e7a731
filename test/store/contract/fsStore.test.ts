// The filesystem store (Tasks, the default) against the task store's contract.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tasks } from "../../../src/store/index.js";
import { storeContract } from "./storeContract.js";

storeContract("filesystem", async (clock) => {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-contract-"));
  const store = await Tasks.open({ dataDir, env: {}, now: clock.now });
  return { store, close: () => rm(dataDir, { recursive: true, force: true }) };
});

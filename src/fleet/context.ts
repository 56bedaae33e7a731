// What every part of the fleet store works with: the connection's JetStream handles, the layout,
// the clock and the lease timings. One per opened store.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { FleetLayout } from "./layout.js";

export interface FleetContext {
  js: JetStreamClient;
  jsm: JetStreamManager;
  layout: FleetLayout;
  now: () => number;
  host: string;
  leaseTtlMs: number;
  heartbeatMs: number;
}

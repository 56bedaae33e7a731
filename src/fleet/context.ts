// What every part of the fleet store works with: the connection's JetStream handles, the layout,
// the clock and the lease timings. One per opened store.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { FleetLayout } from "./layout.js";

export interface FleetContext {
  /** The connection itself, for plain subscriptions (a watcher's bell). */
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  layout: FleetLayout;
  now: () => number;
  host: string;
  leaseTtlMs: number;
  heartbeatMs: number;
}

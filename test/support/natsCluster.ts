// A real three-node nats-server JetStream cluster for a test: each node on free client and
// cluster ports of 127.0.0.1 with its own name and storage directory, routed to the other two,
// ready once JetStream has elected its meta leader. A node can be killed as a crash kills it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { freePort, NatsProcess, onFreePorts } from "./natsProcess.js";

export { natsServerMissing } from "./natsProcess.js";

const HOST = "127.0.0.1";
/** A cluster of three: the smallest that keeps a quorum of replicas with one node gone. */
const NODES = 3;
/** How long JetStream may take to elect its meta leader once every node accepts clients. */
const READY_TIMEOUT_MS = 30_000;
/** The pause between two asks of a starting cluster whether JetStream is ready. */
const READY_PAUSE_MS = 200;

export interface ClusterNode {
  /** The server's name, as JetStream's placement and the client's info name it. */
  name: string;
  url: string;
  /** host:port, as a client's `getServer()` says which node it is connected to. */
  hostPort: string;
  storeDir: string;
  process: NatsProcess;
}

export class NatsCluster {
  readonly nodes: readonly ClusterNode[];

  private constructor(nodes: ClusterNode[]) {
    this.nodes = nodes;
  }

  /** Every node's client URL, as a client given the whole cluster takes them. */
  get urls(): string[] {
    return this.nodes.map((node) => node.url);
  }

  /** Starts a cluster on free ports, again on others when a port was taken meanwhile. */
  static async start(): Promise<NatsCluster> {
    return onFreePorts(() => NatsCluster.startOnFreePorts());
  }

  private static async startOnFreePorts(): Promise<NatsCluster> {
    const name = `warden-test-${process.pid}-${Date.now()}`;
    const plans: Array<{ name: string; port: number; clusterPort: number; storeDir: string }> = [];
    for (let i = 0; i < NODES; i++) {
      plans.push({
        name: `${name}-n${i}`,
        port: await freePort(HOST),
        clusterPort: await freePort(HOST),
        storeDir: await mkdtemp(join(tmpdir(), "warden-nats-cluster-")),
      });
    }
    const nodes: ClusterNode[] = [];
    const cluster = new NatsCluster(nodes);
    try {
      const started = plans.map(async (plan) => {
        const routes = plans
          .filter((other) => other !== plan)
          .map((other) => `nats://${HOST}:${other.clusterPort}`)
          .join(",");
        const args = [
          ...["-a", HOST, "-p", String(plan.port), "-n", plan.name],
          ...["--cluster_name", name, "--cluster", `nats://${HOST}:${plan.clusterPort}`],
          ...["--routes", routes, "-js", "-sd", plan.storeDir],
        ];
        const started = await NatsProcess.start(args, HOST, plan.port);
        nodes.push({
          name: plan.name,
          url: `nats://${HOST}:${plan.port}`,
          hostPort: `${HOST}:${plan.port}`,
          storeDir: plan.storeDir,
          process: started,
        });
      });
      const outcomes = await Promise.allSettled(started);
      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed !== undefined) throw failed.reason;
      nodes.sort((a, b) => a.name.localeCompare(b.name));
      await cluster.#awaitJetStream();
      return cluster;
    } catch (error) {
      await cluster.stop();
      await Promise.all(plans.map((plan) => rm(plan.storeDir, { recursive: true, force: true })));
      throw error;
    }
  }

  /** The node a client's `getServer()` (host:port) names. */
  nodeAt(hostPort: string): ClusterNode {
    const node = this.nodes.find((n) => n.hostPort === hostPort);
    if (node === undefined) throw new Error(`no node of the cluster is at ${hostPort}`);
    return node;
  }

  /** Waits until JetStream answers through every running node: its meta leader is elected. */
  async #awaitJetStream(): Promise<void> {
    const giveUpAt = Date.now() + READY_TIMEOUT_MS;
    for (const node of this.nodes) {
      const nc = await connect({ servers: node.url, reconnect: false });
      try {
        for (;;) {
          try {
            await (await jetstreamManager(nc)).getAccountInfo();
            break;
          } catch (error) {
            if (Date.now() > giveUpAt) {
              throw new Error(
                `JetStream of the cluster did not become ready:\n${node.process.log}`,
                {
                  cause: error,
                },
              );
            }
            await sleep(READY_PAUSE_MS);
          }
        }
      } finally {
        await nc.close();
      }
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.process.stop()));
    await Promise.all(
      this.nodes.map((node) => rm(node.storeDir, { recursive: true, force: true })),
    );
  }
}

// Run inside a bubblewrap sandbox without a network by egress.test.ts: forwards a loopback port
// to the proxy's unix socket, as the runner does, and reports what it could reach.
// argv: <proxy socket path> <port of an allowed echo server on the host's loopback>
import { connect } from "node:net";
import { forwardPorts } from "../../src/guest/forwardPorts.js";
import { openTunnel, readUntil } from "./localPeers.js";

const [socketPath = "", echoPortText = ""] = process.argv.slice(2);
const echoPort = Number(echoPortText);
const forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
const proxy = { host: "127.0.0.1", port: forward.ports[0] ?? 0 };

const report: Record<string, string> = {};
const allowed = await openTunnel(proxy, `127.0.0.1:${echoPort}`);
allowed.socket.write("from the sandbox\n");
report.allowed = `${allowed.status} ${(await readUntil(allowed.socket, "from the sandbox\n")).trim()}`;
allowed.socket.destroy();

const refused = await openTunnel(proxy, "example.org:443");
report.unlisted = String(refused.status);
refused.socket.destroy();

report.direct = await new Promise<string>((resolve) => {
  const socket = connect({ host: "127.0.0.1", port: echoPort });
  socket.once("connect", () => {
    socket.destroy();
    resolve("connected");
  });
  socket.once("error", (error: NodeJS.ErrnoException) => {
    resolve(error.code ?? "error");
  });
});
report.uid = String(process.getuid?.() ?? -1);

await forward.close();
process.stdout.write(JSON.stringify(report) + "\n");

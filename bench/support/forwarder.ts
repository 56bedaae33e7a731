// Shared by the egress benchmarks: the runner's port forwarder for one unix socket, started in
// a process of its own, as the runner runs it inside the sandbox.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const FORWARD_MODULE = fileURLToPath(new URL("../../src/guest/forwardPorts.ts", import.meta.url));

/** Starts forwardPorts for `socketPath` on a free loopback port; kill `process` to stop it. */
export async function startForwarder(
  socketPath: string,
): Promise<{ port: number; process: ChildProcess }> {
  const forwarder = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { forwardPorts } = await import(${JSON.stringify(FORWARD_MODULE)});
       const f = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath: ${JSON.stringify(socketPath)} }]);
       process.stdout.write(f.ports[0] + "\\n");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [portLine] = (await once(forwarder.stdout, "data")) as [Buffer];
  return { port: Number(portLine.toString().trim()), process: forwarder };
}

#!/usr/bin/env node
// The permission prompt tool the runner gives Claude Code for `approve: "prompt"`: an MCP
// server on stdio (see approvalServer.ts) that asks the host over its own connection to the
// channel socket, `permissionTool.js --socket <dir>/control.sock`. Claude Code starts it and
// ends it (by closing its stdin) with the run.
import { parseArgs } from "node:util";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";
import { ApprovalServer, type ApprovalDecision } from "./approvalServer.js";
import { HostChannel } from "./hostChannel.js";
import { LineSplitter } from "./lineSplitter.js";
import { PERMISSION_SOCKET_FLAG } from "./permissionPrompt.js";

/**
 * One connection, opened at the first question. A connection that broke is opened again for
 * the next one: each question stands alone, and the one that was waiting is denied.
 */
class HostAsker {
  private current: HostChannel | undefined;
  private opening: Promise<HostChannel> | undefined;

  constructor(private readonly socket: string) {}

  async ask(tool: string, input: string): Promise<ApprovalDecision> {
    const channel = await this.connected();
    const answer = await channel.request({ op: "approval.ask", tool, input });
    return { decision: answer.decision, reason: answer.reason };
  }

  close(): void {
    this.current?.close();
  }

  /** The open connection, or one being opened: questions asked at once share it. */
  private connected(): Promise<HostChannel> {
    if (this.current !== undefined && this.current.broken === undefined) {
      return Promise.resolve(this.current);
    }
    this.opening ??= HostChannel.open(this.socket).then(
      (channel) => {
        this.current = channel;
        this.opening = undefined;
        return channel;
      },
      (error: unknown) => {
        this.opening = undefined;
        throw error;
      },
    );
    return this.opening;
  }
}

function main(): void {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { [PERMISSION_SOCKET_FLAG.slice(2)]: { type: "string" } },
    strict: true,
  });
  const socket = values[PERMISSION_SOCKET_FLAG.slice(2)];
  if (typeof socket !== "string" || socket === "") {
    process.stderr.write(`warden permission tool: ${PERMISSION_SOCKET_FLAG} is required\n`);
    process.exitCode = 2;
    return;
  }
  const asker = new HostAsker(socket);
  const server = new ApprovalServer(
    (tool, input) => asker.ask(tool, input),
    (line) => {
      process.stdout.write(line);
    },
  );
  const lines = new LineSplitter(GUEST_CHANNEL_LIMITS.mcpLineBytes, (line) => {
    server.line(line.toString("utf8"));
  });
  // Claude Code gone: nobody is left to answer.
  process.stdout.on("error", () => {
    process.exit(0);
  });
  process.stdin.on("data", (chunk: Buffer) => {
    lines.push(chunk);
  });
  process.stdin.on("end", () => {
    lines.end();
    asker.close();
    process.exit(0);
  });
}

main();

#!/usr/bin/env node
// The `warden` command. Each verb lives in a file of its own beside this one.
import { createRequire } from "node:module";
import { Command } from "commander";

const require = createRequire(import.meta.url);
const { version } = require("../../package.json") as { version: string };

const program = new Command("warden")
  .description(
    "Run AI coding agents as unattended, durable tasks in isolated sandboxes,\n" +
      "and get their work back as git branches the host has verified.",
  )
  .version(version, "-V, --version", "print warden's version");

program.parse();

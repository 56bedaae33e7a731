// Progress as a person sees it: in place on a terminal, labelled lines elsewhere, always cleaned.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { makeReporter } from "../../src/host/index.js";

const ID = "01m8mes74kraq2hdhth2mf8c4y";

function capture(
  tty: boolean,
  columns = 40,
): { out: PassThrough & { columns: number }; text: () => string } {
  const out = Object.assign(new PassThrough(), { columns });
  const chunks: Buffer[] = [];
  out.on("data", (chunk: Buffer) => chunks.push(chunk));
  return { out, text: () => Buffer.concat(chunks).toString("utf8") };
}

test("on a terminal, progress is one status line redrawn in place, cut to the width", () => {
  const { out, text } = capture(true, 40);
  const reporter = makeReporter({ out, taskId: ID, tty: true });
  reporter.progress("cloning " + "x".repeat(100));
  reporter.note("running in the bwrap sandbox");
  reporter.done();
  const written = text();
  assert.ok(written.startsWith("\r\x1b[2K[01m8mes7] 0s  cloning"), JSON.stringify(written));
  const lines = written.split("\r\x1b[2K");
  // Status segments (those not ended by a newline) never reach the last column.
  for (const line of lines.filter((l) => !l.endsWith("\n"))) {
    assert.ok(line.length < 40, JSON.stringify(line));
  }
  assert.match(written, /warden\[01m8mes7\]: running in the bwrap sandbox\n/);
  assert.ok(written.endsWith("\r\x1b[2K"), "done() clears the status line");
});

test("on a terminal, sandbox text cannot move the cursor or recolour the screen", () => {
  const { out, text } = capture(true, 200);
  const reporter = makeReporter({ out, taskId: ID, tty: true });
  reporter.progress("evil\x1b[2J\x1b]0;title\x07\r\nnext\u202e");
  reporter.done();
  // The only escape sequence is warden's own line clear.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  const escapes = text().match(/\x1b[^K]*K/g) ?? [];
  assert.ok(escapes.every((e) => e === "\x1b[2K"));
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  assert.doesNotMatch(text().replaceAll("\r\x1b[2K", ""), /[\x00-\x1f\u202e]/);
});

test("elsewhere, each progress line is a labelled log line", () => {
  const { out, text } = capture(false);
  const reporter = makeReporter({ out, taskId: ID, tty: false });
  reporter.progress("warden-guest: git: clone\x1b[31m");
  reporter.warn("no memory limit");
  reporter.done();
  const lines = text().trimEnd().split("\n");
  assert.equal(lines.length, 2);
  assert.match(
    lines[0] ?? "",
    /^\d\d:\d\d:\d\d guest\[01m8mes7\]: warden-guest: git: clone\?\[31m$/,
  );
  assert.match(lines[1] ?? "", /^\d\d:\d\d:\d\d warning\[01m8mes7\]: no memory limit$/);
});

test("quiet shows nothing", () => {
  const { out, text } = capture(false);
  const reporter = makeReporter({ out, taskId: ID, quiet: true });
  reporter.progress("x");
  reporter.note("y");
  reporter.done();
  assert.equal(text(), "");
});

test("every line shows the id it is given, the store's unique prefix, on a terminal and elsewhere", () => {
  const shortId = ID.slice(0, 11);
  for (const tty of [true, false]) {
    const { out, text } = capture(tty, 80);
    const reporter = makeReporter({ out, taskId: ID, shortId, tty });
    reporter.progress("cloning");
    reporter.note("running");
    reporter.done();
    assert.match(text(), /warden\[01m8mes74kr\]: running\n/);
    if (tty) assert.match(text(), /\[01m8mes74kr\] \d+s {2}cloning/);
    else assert.match(text(), /guest\[01m8mes74kr\]: cloning\n/);
  }
  assert.throws(
    () => makeReporter({ out: capture(true).out, taskId: ID, shortId: "01zz", tty: true }),
    /not a prefix of the task id/,
  );
});

test("on a terminal, the status line shows the time since the start beside the latest line", () => {
  const { out, text } = capture(true, 80);
  let now = 1_000_000;
  const reporter = makeReporter({ out, taskId: ID, tty: true, now: () => now });
  now += 65_000;
  reporter.progress("stdout: step one\x1b[31m done");
  reporter.done();
  assert.equal(text(), "\r\x1b[2K[01m8mes7] 1m 05s  stdout: step one?[31m done\r\x1b[2K");
});

test("on a terminal, the elapsed time moves on while the agent is quiet", async () => {
  const { out, text } = capture(true, 80);
  let now = 0;
  const reporter = makeReporter({ out, taskId: ID, tty: true, now: () => now });
  reporter.progress("stdout: waiting");
  now = 3_000;
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  reporter.done();
  assert.match(text(), /\] 0s {2}stdout: waiting/);
  assert.match(text(), /\] 3s {2}stdout: waiting/);
});

test("on a terminal, a long status line with its elapsed time never reaches the last column", () => {
  const { out, text } = capture(true, 30);
  let now = 0;
  const reporter = makeReporter({ out, taskId: ID, tty: true, now: () => now });
  now = 2 * 3600_000 + 5 * 60_000;
  reporter.progress("stderr: " + "é".repeat(100));
  reporter.done();
  const status = text().split("\r\x1b[2K")[1] ?? "";
  assert.ok(status.startsWith("[01m8mes7] 2h 05m  stderr: é"), status);
  assert.ok(Array.from(new Intl.Segmenter().segment(status)).length < 30, status);
});

// The executor's side of stepping inside, against a hostile runner: a fake guest on inside.sock
// that says hello, is handed a session, and then answers it badly. Whatever it sends, the user's
// side gets one refusal in warden's words, the task's events record it, and nothing it sent
// past the bounds is held or passed on.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import {
  FRAME,
  FrameReader,
  INSIDE_LIMITS,
  INSIDE_VERSION,
  TO_GUEST_KINDS,
  frameBytes,
  jsonFrame,
  type FrameKind,
  type InsideOpen,
} from "../../../src/protocol/index.js";
import { eventText } from "../../../src/host/eventText.js";
import { GuestLinks } from "../../../src/host/inside/guestLinks.js";
import { InsideDoor } from "../../../src/host/inside/insideDoor.js";
import {
  connectInside,
  InsideSessionError,
  releaseHold,
  runInside,
} from "../../../src/host/inside/index.js";

interface FakeGuest {
  socket: Socket;
  frames: [FrameKind, Buffer][];
  /** Resolves with the next frame of `kind`. */
  next(kind: FrameKind): Promise<Buffer>;
}

function fakeGuest(
  path: string,
  hello = jsonFrame(FRAME.hello, { v: INSIDE_VERSION }),
): Promise<FakeGuest> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    const frames: [FrameKind, Buffer][] = [];
    const waiters: (() => void)[] = [];
    const reader = new FrameReader(
      TO_GUEST_KINDS,
      (kind, payload) => {
        frames.push([kind, payload]);
        for (const wake of waiters.splice(0)) wake();
      },
      () => socket.destroy(),
    );
    socket.on("data", (chunk: Buffer) => {
      reader.push(chunk);
    });
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      socket.write(hello);
      resolve({
        socket,
        frames,
        async next(kind) {
          for (;;) {
            const found = frames.find(([k]) => k === kind);
            if (found !== undefined) return found[1];
            await new Promise<void>((wake) => waiters.push(wake));
          }
        },
      });
    });
    socket.once("error", reject);
  });
}

describe("the door of stepping inside, against a hostile runner", () => {
  let dir: string;
  let links: GuestLinks;
  let door: InsideDoor;
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const target = () => ({ id: "t", door: join(dir, "door.sock") });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "warden-door-"));
    links = await GuestLinks.listen(join(dir, "inside.sock"));
    door = await InsideDoor.listen({
      path: join(dir, "door.sock"),
      guest: links,
      debug: true,
      record: (type, data) => events.push({ type, data }),
    });
  });
  after(async () => {
    await door.close();
    await links.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Opens `open` with a fresh fake guest waiting; returns the guest and the user's outcome. */
  async function session(open: InsideOpen) {
    const guest = await fakeGuest(join(dir, "inside.sock"));
    await sleep(50);
    const link = await connectInside(target());
    const out: Buffer[] = [];
    const outcome = runInside(link, open, { stdout: (c) => out.push(c), stderr: () => undefined });
    outcome.catch(() => undefined);
    await guest.next(FRAME.open);
    return { guest, outcome, out, link };
  }

  const exec: InsideOpen = { v: INSIDE_VERSION, kind: "exec", argv: ["true"] };

  test("a well-behaved session's output and exit code reach the user, and both ends are recorded", async () => {
    const { guest, outcome, out } = await session(exec);
    guest.socket.write(frameBytes(FRAME.stdout, Buffer.from("hello\n")));
    guest.socket.write(jsonFrame(FRAME.exit, { code: 5 }));
    assert.deepEqual(await outcome, { code: 5 });
    assert.equal(Buffer.concat(out).toString(), "hello\n");
    assert.deepEqual(
      events.slice(-2).map((e) => e.type),
      ["inside", "inside_end"],
    );
    assert.equal(events.at(-1)?.data.exitCode, 5);
    assert.equal(eventText("inside", events.at(-2)?.data ?? {}), "exec opened: true");
    assert.equal(eventText("inside_end", events.at(-1)?.data ?? {}), "exec ended, exit 5, 6 bytes");
  });

  test("a frame longer than the bound is refused from its header, before its bytes come", async () => {
    const { guest, outcome } = await session(exec);
    const header = Buffer.alloc(5);
    header.writeUInt8(FRAME.stdout, 0);
    header.writeUInt32BE(1 << 30, 1);
    guest.socket.write(header);
    await assert.rejects(outcome, (error: unknown) => {
      assert.ok(error instanceof InsideSessionError);
      assert.match(error.message, /a frame of 1073741824 bytes, over 65536/);
      return true;
    });
    assert.match(String(events.at(-1)?.data.error), /1073741824/);
  });

  test("a frame of a kind only the host sends is refused", async () => {
    const { guest, outcome } = await session(exec);
    guest.socket.write(jsonFrame(FRAME.open, exec));
    await assert.rejects(outcome, /kind 2, which this side does not take/);
  });

  test("an exit report that is not one is refused, and an error report is cleaned", async () => {
    const first = await session(exec);
    first.guest.socket.write(jsonFrame(FRAME.exit, { code: 300, extra: true }));
    await assert.rejects(first.outcome, /exit report warden does not take/);
    const second = await session(exec);
    second.guest.socket.write(
      jsonFrame(FRAME.error, { message: "bad\u001b[2J\u202ething\nwarden: forged" }),
    );
    await assert.rejects(second.outcome, (error: unknown) => {
      assert.ok(error instanceof Error);
      for (const raw of ["\u001b", "\u202e", "\n"]) assert.ok(!error.message.includes(raw));
      assert.match(error.message, /bad\?\[2J\?thing \| warden: forged/);
      return true;
    });
  });

  test("a copy out whose bytes are not what the runner claims is refused", async () => {
    const { guest, outcome } = await session({ v: INSIDE_VERSION, kind: "get", path: "a.txt" });
    guest.socket.write(frameBytes(FRAME.stdout, Buffer.from("12345")));
    guest.socket.write(jsonFrame(FRAME.exit, { code: 0, bytes: 3 }));
    await assert.rejects(outcome, /said it sent 3 bytes where 5 came/);
  });

  test("a runner that goes away mid-session ends it with a word of warden's", async () => {
    const { guest, outcome } = await session(exec);
    guest.socket.destroy();
    await assert.rejects(outcome, /ended the session without a word/);
    assert.equal(events.at(-1)?.type, "inside_end");
  });

  test("an idle connection that speaks, or says a wrong hello, is closed and never handed a session", async () => {
    const chatty = await fakeGuest(join(dir, "inside.sock"));
    await sleep(50);
    chatty.socket.write(frameBytes(FRAME.stdout, Buffer.from("unasked")));
    const wrong = await fakeGuest(join(dir, "inside.sock"), jsonFrame(FRAME.hello, { v: 99 }));
    await Promise.all(
      [chatty, wrong].map(
        (g) =>
          new Promise<void>((resolve) => {
            if (g.socket.destroyed) resolve();
            else
              g.socket.once("close", () => {
                resolve();
              });
          }),
      ),
    );
    assert.equal(links.take(), undefined);
  });

  test("connections past the sessions and a spare are refused at once", async () => {
    const guests = await Promise.all(
      Array.from({ length: INSIDE_LIMITS.sessions + 3 }, () => fakeGuest(join(dir, "inside.sock"))),
    );
    await sleep(200);
    const open = guests.filter((g) => !g.socket.destroyed);
    assert.equal(open.length, INSIDE_LIMITS.sessions + 1);
    for (const g of guests) g.socket.destroy();
    await sleep(100);
  });

  test("stop releases the hold: the idle connection is told, and so is one that comes later", async () => {
    const before = await fakeGuest(join(dir, "inside.sock"));
    await sleep(50);
    await releaseHold(target());
    await before.next(FRAME.release);
    const later = await fakeGuest(join(dir, "inside.sock"));
    await later.next(FRAME.release);
    assert.equal(events.at(-1)?.data.kind, "stop");
    before.socket.destroy();
    later.socket.destroy();
  });
});

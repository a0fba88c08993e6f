// Subscriptions over Cap'n Web with the sink passed as a function and as
// an RpcTarget: the backlog, then live ops (appended over both protocols),
// in cursor order without gap or repeat; a revoke made over /rpc (the CLI)
// ends the subscription with end("revoked") and every later call on the
// share's stubs fails with code "revoked".
import assert from "node:assert/strict";
import { test } from "node:test";
import { RpcTarget } from "capnweb";
import { cliOK, connect, createShare, rejection, textOp, waitUntil, within } from "./helpers.mjs";

const REVOKED = "revoked: capability revoked or expired";

/**
 * A share with n ops, and a session holding its owner's appender.
 * @param {string} title
 * @param {number} n
 */
async function shareWithOps(title, n) {
  const { owner } = await createShare(title);
  const session = connect();
  const { share, access } = await session.vault.restore(owner);
  const appender = share.appender();
  const ops = Array.from({ length: n }, (_, i) => textOp(`${title}-${i + 1}`, i));
  const ack = await appender.append({ batchId: "backlog", epoch: access.epoch, ops });
  assert.equal(ack.applied, n);
  return { owner, session, appender, epoch: access.epoch };
}

/** @param {{cursor: number}[]} got @param {number} n */
function assertCursors(got, n) {
  assert.deepEqual(got.map((o) => o.cursor), Array.from({ length: n }, (_, i) => i + 1));
}

test("subscribe with a function: backlog, then live ops in order; a revoke over /rpc ends it", async () => {
  const { owner, session, appender, epoch } = await shareWithOps("fn", 3);
  // A read-only token minted over /rpc, subscribed over Cap'n Web.
  const grant = JSON.parse(await cliOK(["grant", "--scope", "read", "--label", "subscriber", "--json"], { token: owner }));
  const { vault } = connect();
  try {
    /** @type {import("../sharevat.d.ts").LogEntry[]} */
    const got = [];
    /** @type {{code: string, detail: string}[]} */
    const ends = [];
    /** @type {number[]} */
    const pushSizes = [];
    const { share } = await vault.restore(grant.token);
    const reader = share.reader();
    const sub = await reader.subscribe(0, (ops, end) => {
      if (end) ends.push(end);
      else pushSizes.push(ops.length);
      got.push(...ops);
    });
    await waitUntil(() => got.length >= 3, "the backlog");
    assertCursors(got, 3);
    assert.deepEqual(got.map((o) => o.opId), ["fn-1", "fn-2", "fn-3"]);
    assert.deepEqual(got[0].body, { type: "text", text: "fn-1" });

    // Live: one op over /rpc (the CLI), two over Cap'n Web.
    await cliOK(["append", "--quiet"], { token: owner, input: '{"op_id":"fn-4","kind":"event","body":{"type":"via rpc"}}\n' });
    await appender.append({ epoch, ops: [textOp("fn-5", 0), textOp("fn-6", 1)] });
    await waitUntil(() => got.length >= 6, "the live ops");
    assertCursors(got, 6);
    assert.deepEqual(got[3].body, { type: "via rpc" });
    assert.equal(await sub.cursor(), 6);
    assert.equal(ends.length, 0);

    // Revoke the subscriber's grant over /rpc: end arrives, then every call fails revoked.
    await cliOK(["revoke", "--grant", grant.grant_id], { token: owner });
    await waitUntil(() => ends.length > 0, "end after the revoke", 5_000);
    assert.deepEqual(ends, [{ code: "revoked", detail: "capability revoked" }]);
    assertCursors(got, 6);
    for (const [what, call] of /** @type {[string, () => Promise<unknown>][]} */ ([
      ["subscription.cursor", () => sub.cursor()],
      ["reader.read", () => reader.read(0, 10)],
      ["share.info", () => share.info()],
    ])) {
      const err = await rejection(call());
      assert.equal(err.code, "revoked", `${what}: ${err.message}`);
      assert.equal(err.message, REVOKED, what);
    }
  } finally {
    vault[Symbol.dispose]();
    session.vault[Symbol.dispose]();
  }
});

/** A sink as an RpcTarget: records pushes and the end. */
class Sink extends RpcTarget {
  /** @type {import("../sharevat.d.ts").LogEntry[]} */
  got = [];
  /** @type {[string, string][]} */
  ends = [];
  /** @type {(v?: unknown) => void} */
  #ended = () => {};
  ended = new Promise((resolve) => { this.#ended = resolve; });

  /** @param {import("../sharevat.d.ts").LogEntry[]} ops */
  async push(ops) {
    // Answer after a turn of the event loop: the vat awaits each push.
    await new Promise((r) => setImmediate(r));
    this.got.push(...ops);
  }

  /** @param {string} code @param {string} detail */
  end(code, detail) {
    this.ends.push([code, detail]);
    this.#ended();
  }
}

test("subscribe with an RpcTarget: backlog, then live ops in order; an epoch bump over /rpc ends it", async () => {
  const { owner, session, appender, epoch } = await shareWithOps("target", 300);
  const { vault } = connect();
  try {
    const sink = new Sink();
    const { share } = await vault.restore(owner);
    const sub = await share.reader().subscribe(0, sink);
    await waitUntil(() => sink.got.length >= 300, "the backlog of 300 ops (pushes of at most 256)");
    for (let i = 0; i < 5; i++) await appender.append({ batchId: `live-${i}`, epoch, ops: [textOp(`live-${i}`, 0)] });
    await waitUntil(() => sink.got.length >= 305, "the live ops");
    assertCursors(sink.got, 305);
    assert.deepEqual(sink.got.slice(300).map((o) => o.opId), ["live-0", "live-1", "live-2", "live-3", "live-4"]);
    assert.equal(await sub.cursor(), 305);

    // revoke --all bumps the epoch over /rpc: every grant of the share dies.
    await cliOK(["revoke", "--all"], { token: owner });
    await within(sink.ended, "end after the epoch bump", 5_000);
    assert.deepEqual(sink.ends, [["revoked", "capability revoked"]]);
    assert.equal(sink.got.length, 305, "no push after the end");
    const err = await rejection(sub.cursor());
    assert.equal(err.code, "revoked");
    const stale = await appender.append({ epoch, ops: [textOp("after-bump", 0)] }).catch((e) => e);
    assert.equal(stale.code, "revoked", "the owner's appender is fenced too");
  } finally {
    vault[Symbol.dispose]();
    session.vault[Symbol.dispose]();
  }
});

test("disposing the Subscription ends it; another subscription goes on", async () => {
  const { session, appender, epoch, owner } = await shareWithOps("dispose", 1);
  const { vault } = connect();
  try {
    const first = new Sink();
    /** @type {import("../sharevat.d.ts").LogEntry[]} */
    const second = [];
    const reader = vault.restore(owner).share.reader();
    const sub1 = await reader.subscribe(0, first);
    const sub2 = await reader.subscribe(0, (ops) => { second.push(...ops); });
    await waitUntil(() => first.got.length === 1 && second.length === 1, "both backlogs");
    sub1[Symbol.dispose]();
    // The vat sees the release before the later append (one socket, in order),
    // proven by a round trip on the same session after it.
    await reader.read(0, 1);
    await appender.append({ epoch, ops: [textOp("dispose-2", 0)] });
    await waitUntil(() => second.length === 2, "the live op on the second subscription");
    assert.equal(await sub2.cursor(), 2);
    // By the time the second subscription has the op, the released one has not.
    assert.equal(first.got.length, 1);
    assert.equal(first.ends.length, 0, "a released subscription ends without end");
  } finally {
    vault[Symbol.dispose]();
    session.vault[Symbol.dispose]();
  }
});

// The vat's window holds over Cap'n Web as over /rpc: the bridge sends a
// push before it lets the next one in, and awaits each answer apart. Only
// the first push waits for its answer before the next goes: it is how the
// bridge learns whether the sink is a function or an object with push
// (docs/capnweb.md, "Subscriptions").
test("flow control: the vat stops pushing while a window of pushes is unanswered", async () => {
  const { owner, session, appender, epoch } = await shareWithOps("window", 0);
  const { vault } = connect();
  try {
    // 30 ops of 60 KiB: one op per push (a push holds at most 64 KiB), 1.8 MiB in all,
    // against a window of 512 KiB of unanswered pushes.
    const text = "w".repeat(60 << 10);
    for (let b = 0; b < 6; b++) {
      const ops = Array.from({ length: 5 }, (_, i) => textOp(`w-${b * 5 + i}`, i, { type: "text", text }));
      assert.equal((await appender.append({ batchId: `w${b}`, epoch, ops })).applied, 5);
    }
    /** @type {import("../sharevat.d.ts").LogEntry[][]} */
    const pushes = [];
    /** @type {(() => void)[]} */
    const answers = [];
    let held = true;
    const sub = await vault.restore(owner).share.reader().subscribe(0, (ops) => {
      pushes.push(ops);
      if (!held || pushes.length === 1) return;
      return new Promise((resolve) => { answers.push(() => resolve(undefined)); });
    });
    await waitUntil(() => pushes.length >= 8, () => `the first window of pushes (got ${pushes.length})`);
    // Nothing is answered: whatever arrives within the next round trips stays within the window.
    for (let i = 0; i < 5; i++) await sub.cursor();
    assert.ok(pushes.length <= 11, `the first push and at most a window of 512 KiB unanswered (9 pushes of 60 KiB), got ${pushes.length}`);
    assert.ok((await sub.cursor()) < 30, "the vat has not sent everything");
    // Answering lets the rest through, in order.
    held = false;
    for (const a of answers.splice(0)) a();
    await waitUntil(() => pushes.flat().length >= 30, "every op after the answers");
    assertCursors(pushes.flat(), 30);
    assert.ok(pushes.every((p) => p.length === 1), "one 60 KiB op per push");
  } finally {
    vault[Symbol.dispose]();
    session.vault[Symbol.dispose]();
  }
});

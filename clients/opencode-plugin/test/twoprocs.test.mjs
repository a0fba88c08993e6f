// Two opencode processes on one session (`opencode run --continue` while
// the TUI has it open): two plugin instances share one outbox directory
// and one session. The second finds the session's outbox held and writes
// to a side outbox of its own, without waiting; both flush into the
// session's one share. Nothing is lost, no op id appears twice, and a
// side outbox left unsent (its process gone) is sent by the next start.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import test from "node:test";
import SharevatPlugin from "../src/index.js";
import { eventToItem, itemToOp } from "../src/mapping.js";
import { creationToken, readLog, readState, scratch, vatURL } from "./helpers.mjs";

/** A session id no earlier run used (the door answers one share per session and creation token). */
const freshID = (n) => `ses_two${n}_${process.pid}_${Date.now()}`;

const session = (id, updated) => ({ type: "session.updated", properties: { sessionID: id, info: { id, title: "two", time: { created: 1, updated } } } });
const message = (id, mid) => ({ type: "message.updated", properties: { info: { id: mid, sessionID: id, role: "assistant", time: { created: 2 } } } });
const part = (id, mid, text) => ({ type: "message.part.updated", properties: { part: { id: `prt_${mid}`, sessionID: id, messageID: mid, type: "text", text } } });

/**
 * The events of each process: both see the session (the same versions,
 * so duplicates), each adds its own message and streams its own part.
 * @param {string} id
 */
function script(id) {
  return {
    a: [session(id, 2), message(id, "msg_a"), part(id, "msg_a", "a"), part(id, "msg_a", "a and more"), session(id, 3)],
    b: [session(id, 2), message(id, "msg_b"), part(id, "msg_b", "b"), part(id, "msg_b", "b and more"), session(id, 3)],
  };
}

/** The op ids the events map to (the door's mapping), and each key's last body. */
function expected(events) {
  const ids = new Set();
  /** @type {Map<string, string>} */
  const last = new Map();
  for (const ev of events) {
    const it = eventToItem(ev);
    const op = itemToOp(it.type, it.data, it.sessionID);
    ids.add(op.opId);
    last.set(`${op.kind} ${op.key}`, op.body);
  }
  return { ids, last };
}

/** The outbox files of a session directory: the main one and side ones (not locks or temporary files). */
function outboxFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((n) => /^outbox(\.\d+-[0-9a-f]+)?$/.test(n)).sort();
}

/** A URL nothing listens on: the vat out of reach of one process. */
async function deadURL() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}`;
}

/** Runs both scripts interleaved, each hook's op on disk when it returns (checked on the outbox files' sizes). */
async function interleave(a, b, s, dir, id) {
  for (let i = 0; i < s.a.length; i++) {
    for (const [hooks, ev] of [[a, s.a[i]], [b, s.b[i]]]) {
      const size = () => outboxFiles(path.join(dir, id)).reduce((n, f) => n + fs.statSync(path.join(dir, id, f)).size, 0);
      const before = size();
      const p = hooks.event({ event: ev });
      assert.ok(size() > before, `${ev.type} was on disk when the hook returned`);
      await p;
    }
  }
}

/**
 * Checks the share: its log holds every op id of the events once and no op
 * id twice; its state (token's snapshot) holds each key at its newest
 * version (the vat's version rule, whatever order the two processes' ops
 * came in).
 */
async function checkShare(token, log, events) {
  const { ids, last } = expected(events);
  const seen = log.map((e) => e.opId);
  assert.equal(new Set(seen).size, seen.length, `no op id twice: ${seen.join(" ")}`);
  for (const want of ids) assert.ok(seen.includes(want), `the vat holds ${want}`);
  /** @type {Map<string, string>} */
  const end = new Map();
  for (const e of await readState(token)) end.set(`${e.kind} ${e.key}`, JSON.stringify(e.body));
  assert.deepEqual(end, last, "the share's state holds each key at its newest version");
}

test("a second process on a held session writes a side outbox at once; both flush into one share, nothing lost, no op id twice", async () => {
  const dir = scratch();
  const id = freshID(1);
  const lines = [];
  const a = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir });
  const b = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir });
  const s = script(id);
  const errWrite = process.stderr.write;
  process.stderr.write = (chunk, ...rest) => (lines.push(String(chunk)), errWrite.call(process.stderr, chunk, ...rest));
  try {
    await interleave(a, b, s, dir, id);
  } finally {
    process.stderr.write = errWrite;
  }
  assert.equal(outboxFiles(path.join(dir, id)).length, 2, "the main outbox and one side outbox");
  assert.ok(lines.some((l) => l.includes(`session ${id}: its outbox is held by another process`)), lines.join(""));

  const all = [...s.a, ...s.b];
  const log = await waitFor(async () => {
    const sh = share(dir, id);
    const l = sh ? await readLog(sh.token) : [];
    return l.length >= expected(all).ids.size ? l : null;
  });
  await b.dispose();
  await a.dispose();
  await checkShare(share(dir, id).token, log, all);
  assert.deepEqual(outboxFiles(path.join(dir, id)), ["outbox"], "the side outbox, sent whole, is removed at exit");
});

test("a side outbox its process left unsent is sent by the next start, once", async () => {
  const dir = scratch();
  const id = freshID(2);
  const a = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir });
  const b = await SharevatPlugin({}, { url: await deadURL(), token: creationToken(), dir }); // b cannot reach the vat
  const s = script(id);
  await interleave(a, b, s, dir, id);
  await b.dispose(); // b's process ends with its ops unsent
  const side = outboxFiles(path.join(dir, id)).filter((f) => f !== "outbox");
  assert.equal(side.length, 1, "b's side outbox is left on disk");
  await waitFor(async () => {
    const sh = share(dir, id);
    return sh && (await readLog(sh.token)).length >= expected(s.a).ids.size;
  });
  await a.dispose();

  const next = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir }); // the next opencode start
  const all = [...s.a, ...s.b];
  const log = await waitFor(async () => {
    const l = await readLog(share(dir, id).token);
    return l.length >= expected(all).ids.size && !fs.existsSync(path.join(dir, id, side[0])) ? l : null;
  });
  await next.dispose();
  await checkShare(share(dir, id).token, log, all);
});

/** The session's share.json, or null. */
function share(dir, id) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, id, "share.json"), "utf8"));
  } catch {
    return null;
  }
}

/** Polls cond every 20 ms until it gives a truthy value, and returns that (the flush runs in the background, signalling nothing). */
async function waitFor(cond) {
  for (let i = 0; i < 1500; i++) {
    const v = await cond();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out waiting");
}

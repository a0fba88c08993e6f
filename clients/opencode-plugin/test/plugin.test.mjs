// The plugin as opencode loads it: the event hook's op is on disk before
// the hook returns; what a run left unsent (the vat down) is sent by the
// next start; mode "shared" follows opencode's own share state.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import test from "node:test";
import SharevatPlugin from "../src/index.js";
import { creationToken, doorCreate, readLog, readState, scratch, vatURL } from "./helpers.mjs";

const sid = (n) => `ses_plugin${n}`;
const events = (id) => [
  { type: "session.updated", properties: { sessionID: id, info: { id, title: "t", directory: "/p", time: { created: 1, updated: 2 } } } },
  { type: "message.updated", properties: { info: { id: "msg_1", sessionID: id, role: "user" } } },
  { type: "message.part.delta", properties: { sessionID: id, messageID: "msg_1", partID: "prt_1", delta: "h" } },
  { type: "message.part.updated", properties: { part: { id: "prt_1", sessionID: id, messageID: "msg_1", type: "text", text: "hi" } } },
  { type: "session.diff", properties: { sessionID: id, diff: [] } },
];

/** A URL nothing listens on: a vat that is down. */
async function deadURL() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}`;
}

test("each update is in the outbox file when the hook returns, even with the vat down; the next start sends it", async () => {
  const dir = scratch();
  const hooks = await SharevatPlugin({}, { url: await deadURL(), token: creationToken(), dir });
  const id = sid(1);
  for (const ev of events(id)) {
    const before = fs.existsSync(path.join(dir, id, "outbox")) ? fs.statSync(path.join(dir, id, "outbox")).size : 0;
    const p = hooks.event({ event: ev }); // the synchronous part of the hook has run
    const after = fs.statSync(path.join(dir, id, "outbox")).size;
    assert.equal(after > before, ev.type !== "message.part.delta", ev.type);
    await p;
  }
  await hooks.dispose();

  const next = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir }); // the next opencode start
  const log = await waitFor(() => logOf(dir, id, 4));
  await next.dispose();
  assert.deepEqual(log.map((e) => e.kind), ["session", "message", "part", "session_diff"]);
  assert.deepEqual(log.map((e) => e.key), [id, "msg_1", "msg_1/prt_1", id]);
});

test('mode "shared" keeps only sessions opencode shares, sends what they held before, and unsharing deletes the vat share', async () => {
  const dir = scratch();
  const id = sid(2);
  let release;
  const held = new Promise((r) => (release = r));
  const older = { id: "msg_1", sessionID: id, role: "user", old: true };
  const diff = [{ file: "one.txt", before: "", after: "one\n", additions: 1, deletions: 0 }];
  const client = { session: {
    messages: async () => (await held, { data: [
      { info: { id: "msg_0", sessionID: id, role: "user" }, parts: [{ id: "prt_0", sessionID: id, messageID: "msg_0", type: "text", text: "before" }] },
      { info: older, parts: [] },
    ] }),
    diff: async () => (await held, { data: diff }), // GET /session/{id}/diff: the session's diff before it was shared
  } };
  const hooks = await SharevatPlugin({ client }, { url: vatURL(), token: creationToken(), dir, sessions: "shared" });
  for (const ev of events(id)) await hooks.event({ event: ev });
  assert.equal(fs.existsSync(path.join(dir, id)), false, "a session opencode does not share leaves nothing");

  const shared = { id, title: "t", share: { url: "https://opncd.ai/share/x" }, time: { created: 1, updated: 3 } };
  await hooks.event({ event: { type: "session.updated", properties: { sessionID: id, info: shared } } });
  await hooks.event({ event: events(id)[1] }); // msg_1, newer than what the full sync reads
  release();
  await waitFor(() => share(dir, id));
  const { token } = share(dir, id);
  let log = [];
  for (let i = 0; i < 500 && log.length < 5; i++) {
    log = await readLog(token); // the flush signals nothing: poll the vat
    if (log.length < 5) await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(log.map((e) => `${e.kind} ${e.key}`), ["session " + id, "message msg_1", "message msg_0", "part msg_0/prt_0", "session_diff " + id]);
  assert.equal(log[1].body.old, undefined, "the full sync's older msg_1 is not sent after the event's");
  assert.deepEqual(log[4].body, diff, "the full sync sends the session's diff as the door's session_diff item");
  assert.match(log[4].opId, new RegExp(`^opencode:session_diff:${id}:[0-9a-f]{12}$`));

  const { share: _, ...unshared } = shared;
  await hooks.event({ event: { type: "session.updated", properties: { sessionID: id, info: { ...unshared, time: { created: 1, updated: 4 } } } } });
  await waitFor(() => !fs.existsSync(path.join(dir, id)));
  await assert.rejects(readLog(token), (err) => ["unauthorized", "notFound", "revoked"].includes(err.code));
  await hooks.dispose();
});

test("a version stock opencode stored first through the door stays the share's when the plugin's older one arrives after it", async () => {
  const id = sid(`3_${process.pid}_${Date.now()}`); // the door answers the same share for the same session
  const running = { id: "prt_t", sessionID: id, messageID: "msg_1", type: "tool", state: { status: "running", time: { start: 5 } } };
  const completed = { ...running, state: { status: "completed", output: "ok", time: { start: 5, end: 6 } } };
  const door = await doorCreate(id);
  const res = await fetch(`${vatURL()}/opencode/${creationToken()}/api/share/${door.id}/sync`, {
    method: "POST", body: JSON.stringify({ secret: door.secret, data: [{ type: "part", data: completed }] }),
  });
  assert.equal(res.status, 200, await res.text());

  const dir = scratch();
  const hooks = await SharevatPlugin({}, { url: vatURL(), token: creationToken(), dir });
  for (const part of [running, completed]) await hooks.event({ event: { type: "message.part.updated", properties: { part } } });
  const log = await waitFor(async () => {
    const l = await readLog(door.secret);
    return l.length >= 2 ? l : null; // the door's completed, then the plugin's running (its completed is a duplicate)
  });
  await hooks.dispose();
  assert.deepEqual(log[1].body, running, "the log keeps the older version, after the newer");
  const state = await readState(door.secret);
  assert.equal(state.length, 1);
  assert.deepEqual(state[0].body, completed, "the share's state holds the newest version (the vat's version rule), whatever order the writers' ops came in");
  assert.equal(new Set(log.map((e) => e.opId)).size, log.length, "no op id twice");
});

/** The session's share.json, or null. */
function share(dir, id) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, id, "share.json"), "utf8"));
  } catch {
    return null;
  }
}

/** The session's log once its share exists and holds n ops, else null. */
async function logOf(dir, id, n) {
  const sh = share(dir, id);
  if (!sh) return null;
  const log = await readLog(sh.token);
  return log.length >= n ? log : null;
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

// The plugin as opencode loads it: the event hook's op is on disk before
// the hook returns; what a run left unsent (the vat down) is sent by the
// next start; mode "shared" follows opencode's own share state.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import test from "node:test";
import SharevatPlugin from "../src/index.js";
import { adminToken, readLog, scratch, vatURL } from "./helpers.mjs";

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
  const hooks = await SharevatPlugin({}, { url: await deadURL(), token: adminToken(), dir });
  const id = sid(1);
  for (const ev of events(id)) {
    const before = fs.existsSync(path.join(dir, id, "ops.jsonl")) ? fs.statSync(path.join(dir, id, "ops.jsonl")).size : 0;
    const p = hooks.event({ event: ev }); // the synchronous part of the hook has run
    const after = fs.statSync(path.join(dir, id, "ops.jsonl")).size;
    assert.equal(after > before, ev.type !== "message.part.delta", ev.type);
    await p;
  }
  await hooks.dispose();

  const next = await SharevatPlugin({}, { url: vatURL(), token: adminToken(), dir }); // the next opencode start
  await waitFor(() => sent(dir, id));
  await next.dispose();
  const log = await readLog(share(dir, id).token);
  assert.deepEqual(log.map((e) => e.kind), ["session", "message", "part", "session_diff"]);
  assert.deepEqual(log.map((e) => e.key), [id, "msg_1", "msg_1/prt_1", id]);
});

test('mode "shared" keeps only sessions opencode shares, and unsharing deletes the vat share', async () => {
  const dir = scratch();
  const hooks = await SharevatPlugin({}, { url: vatURL(), token: adminToken(), dir, sessions: "shared" });
  const id = sid(2);
  for (const ev of events(id)) await hooks.event({ event: ev });
  assert.equal(fs.existsSync(path.join(dir, id)), false, "a session opencode does not share leaves nothing");

  const shared = { id, title: "t", share: { url: "https://opncd.ai/share/x" }, time: { created: 1, updated: 3 } };
  await hooks.event({ event: { type: "session.updated", properties: { sessionID: id, info: shared } } });
  await hooks.event({ event: events(id)[1] });
  await waitFor(() => sent(dir, id));
  const { token } = share(dir, id);
  assert.deepEqual((await readLog(token)).map((e) => e.kind), ["session", "message"]);

  const { share: _, ...unshared } = shared;
  await hooks.event({ event: { type: "session.updated", properties: { sessionID: id, info: { ...unshared, time: { created: 1, updated: 4 } } } } });
  await waitFor(() => !fs.existsSync(path.join(dir, id)));
  await assert.rejects(readLog(token), (err) => ["unauthorized", "notFound", "revoked"].includes(err.code));
  await hooks.dispose();
});

/** The session's share.json, or null. */
function share(dir, id) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, id, "share.json"), "utf8"));
  } catch {
    return null;
  }
}

/** Whether the session's outbox on disk has a share and nothing unacknowledged. */
function sent(dir, id) {
  const size = fs.statSync(path.join(dir, id, "ops.jsonl")).size;
  let acked = 0;
  try {
    acked = Number(fs.readFileSync(path.join(dir, id, "acked"), "utf8"));
  } catch {
    // none yet
  }
  return share(dir, id) !== null && acked >= size;
}

/** Polls cond every 20 ms until it holds (the flush runs in the background, signalling nothing). */
async function waitFor(cond) {
  for (let i = 0; i < 1500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out waiting");
}

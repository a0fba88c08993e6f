// The background flush against a real vat: exactly once into the share
// the opencode door answers for the session and the creation token (the
// one stock opencode gets through the door), a refused creation token,
// a revoked share token.
import assert from "node:assert/strict";
import test from "node:test";
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";
import { Flusher } from "../src/flusher.js";
import { itemToOp } from "../src/mapping.js";
import { creationToken, doorCreate, readLog, scratch, vatURL } from "./helpers.mjs";

/** @param {string} dir @param {string[]} lines @param {string} [token] */
function flusher(dir, lines, token = creationToken()) {
  return new Flusher({ url: vatURL(), token, dir, log: (l) => lines.push(l), debounceMs: 0, keepAlive: true });
}

const items = (sid) => [
  itemToOp("session", { id: sid, title: "t", time: { created: 1, updated: 2 } }, sid),
  itemToOp("message", { id: "msg_1", sessionID: sid, role: "user" }, sid),
  itemToOp("part", { id: "prt_1", sessionID: sid, messageID: "msg_1", type: "text", text: "hi" }, sid),
];

/** @param {Flusher} f @param {string} sid @param {any[]} ops */
function enqueue(f, sid, ops) {
  f.outbox(sid).enqueueSync(ops.map((o) => ({ opId: o.opId, kind: o.kind, key: o.key, body: Buffer.from(o.body) })));
}

test("a session's ops reach the door's share for it once, byte for byte; a second outbox of the same session converges on the same share", async () => {
  const door = await doorCreate("ses_a"); // stock opencode shared it through the door first
  const lines = [];
  const f = flusher(scratch(), lines);
  enqueue(f, "ses_a", items("ses_a"));
  await f.kick("ses_a");
  assert.equal(f.outbox("ses_a").status().pending, 0, lines.join("\n"));
  const share = f.readShare("ses_a");
  assert.equal(share.shareId, door.id, "the plugin's share is the door's share of the session");
  assert.equal(share.link, door.url);
  await f.close();

  // Another outbox of the same session (share.json lost, another machine): same share, only duplicates.
  const g = flusher(scratch(), lines);
  enqueue(g, "ses_a", items("ses_a"));
  await g.kick("ses_a");
  assert.equal(g.readShare("ses_a").shareId, door.id);
  const dup = g.outbox("ses_a").status();
  assert.equal(dup.pending, 0);
  await g.close();

  const log = await readLog(door.secret);
  assert.deepEqual(
    log.map((e) => [e.opId, e.kind, e.key, JSON.stringify(e.body)]),
    items("ses_a").map((o) => [o.opId, o.kind, o.key, o.body]),
  );
});

test("a refused creation token stops the flush with a log line that holds no token, and keeps the ops", async () => {
  const lines = [];
  const bad = "svt1_" + "A".repeat(40);
  const f = flusher(scratch(), lines, bad);
  enqueue(f, "ses_c", items("ses_c"));
  await f.kick("ses_c");
  assert.ok(f.stopped.has("ses_c"), lines.join("\n"));
  assert.equal(f.outbox("ses_c").status().pending, 3);
  const line = lines.find((l) => l.includes("flush stopped"));
  assert.match(line ?? "", /ses_c: the vat refused the token \(.*401.*\); flush stopped, unsent ops kept in /);
  assert.ok(!lines.join("\n").includes(bad));
  await f.close();
});

test("a revoked share token stops the flush with a clear log line and keeps the ops", async () => {
  const lines = [];
  const f = flusher(scratch(), lines);
  enqueue(f, "ses_r", items("ses_r").slice(0, 1));
  await f.kick("ses_r");
  const { token } = f.readShare("ses_r");

  const vault = newWebSocketRpcSession(new WebSocket(vatURL().replace(/^http/, "ws") + "/capnweb"));
  const r = await vault.restore(token);
  await r.share.bumpEpoch();
  vault[Symbol.dispose]();

  enqueue(f, "ses_r", items("ses_r").slice(1));
  await f.kick("ses_r");
  assert.equal(f.outbox("ses_r").status().pending, 2);
  assert.ok(f.stopped.has("ses_r"));
  const line = lines.find((l) => l.includes("flush stopped"));
  assert.ok(line, lines.join("\n"));
  assert.match(line, /ses_r: the vat refused the token \(.*(revoked|unauthorized).*\); flush stopped, unsent ops kept in /);
  assert.ok(!line.includes(token));
  await f.close();
});

// The background flush against a real vat: exactly once, resent after a
// lost ack, the link, a revoked token.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";
import { Flusher } from "../src/flusher.js";
import { itemToOp } from "../src/mapping.js";
import { adminToken, readLog, scratch, vatURL } from "./helpers.mjs";

/** @param {string} dir @param {string[]} lines */
function flusher(dir, lines) {
  return new Flusher({ url: vatURL(), token: adminToken(), dir, log: (l) => lines.push(l), debounceMs: 0, keepAlive: true });
}

const items = (sid) => [
  itemToOp("session", { id: sid, title: "t", time: { created: 1, updated: 2 } }, sid),
  itemToOp("message", { id: "msg_1", sessionID: sid, role: "user" }, sid),
  itemToOp("part", { id: "prt_1", sessionID: sid, messageID: "msg_1", type: "text", text: "hi" }, sid),
];

test("a session's ops reach its new share once, with their bodies byte for byte; resending after a lost ack is duplicate", async () => {
  const dir = scratch();
  const lines = [];
  const f = flusher(dir, lines);
  const ob = f.outbox("ses_a");
  for (const op of items("ses_a")) ob.enqueue(op);
  await f.kick("ses_a");
  assert.equal(ob.hasPending(), false, lines.join("\n"));
  const share = ob.readShare();
  assert.match(share.link, /\/s\/#svt1_/);

  // The ack is lost: the same ops are in the outbox again.
  fs.rmSync(path.join(ob.dir, "acked"), { force: true });
  for (const op of items("ses_a")) ob.last.clear(), ob.enqueue(op);
  await f.kick("ses_a");
  f.close();

  const log = await readLog(share.token);
  assert.deepEqual(
    log.map((e) => [e.opId, e.kind, e.key, JSON.stringify(e.body)]),
    items("ses_a").map((o) => [o.opId, o.kind, o.key, o.body]),
  );
});

test("a revoked share token stops the flush with a clear log line and keeps the ops", async () => {
  const dir = scratch();
  const lines = [];
  const f = flusher(dir, lines);
  const ob = f.outbox("ses_r");
  ob.enqueue(items("ses_r")[0]);
  await f.kick("ses_r");
  const { token } = ob.readShare();

  const vault = newWebSocketRpcSession(new WebSocket(vatURL().replace(/^http/, "ws") + "/capnweb"));
  const r = await vault.restore(token);
  await r.share.bumpEpoch();
  vault[Symbol.dispose]();

  ob.enqueue(items("ses_r")[1]);
  await f.kick("ses_r");
  assert.equal(ob.hasPending(), true);
  assert.ok(f.stopped.has("ses_r"));
  const line = lines.find((l) => l.includes("flush stopped"));
  assert.ok(line, lines.join("\n"));
  assert.match(line, /ses_r: the vat refused the token \((revoked|unauthorized)\); flush stopped, unsent ops kept in /);
  assert.ok(!line.includes(token));
  f.close();
});

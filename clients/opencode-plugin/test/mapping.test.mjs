// The item → op mapping shared with the vat's opencode door.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import test from "node:test";
import { eventToItem, itemToOp } from "../src/mapping.js";

const sha12 = (s) => createHash("sha256").update(s).digest("hex").slice(0, 12);

test("each item type gets the door's kind, key, body and op id", () => {
  const part = { id: "prt_2", sessionID: "ses_1", messageID: "msg_9", type: "text", text: "héllo", time: { start: 1.5e12 } };
  const cases = [
    ["session", { id: "ses_1", title: "t", time: { created: 1, updated: 2 } }, "ses_1"],
    ["message", { id: "msg_9", sessionID: "ses_1", role: "user" }, "msg_9"],
    ["part", part, "msg_9/prt_2"],
    ["session_diff", [{ file: "a.txt", additions: 1 }], "ses_1"],
    ["model", [{ id: "mock-1", providerID: "mock" }], "ses_1"],
  ];
  for (const [type, data, key] of cases) {
    const op = itemToOp(type, data, "ses_1");
    const body = JSON.stringify(data);
    assert.deepEqual(op, { opId: `opencode:${type}:${key}:${sha12(body)}`, kind: type, key, body }, type);
  }
});

test("a changed item is a new op id, the same item the same one", () => {
  const a = itemToOp("message", { id: "msg_1", n: 1 }, "ses_1");
  assert.equal(itemToOp("message", { id: "msg_1", n: 1 }, "ses_1").opId, a.opId);
  assert.notEqual(itemToOp("message", { id: "msg_1", n: 2 }, "ses_1").opId, a.opId);
});

test("an unknown item type is refused, naming it", () => {
  assert.throws(() => itemToOp("todo", {}, "ses_1"), /"todo" is not one of session, message, part, session_diff, model/);
});

test("bus events become the items opencode's share client sends", () => {
  const info = { id: "ses_1", title: "x" };
  assert.deepEqual(eventToItem({ type: "session.updated", properties: { sessionID: "ses_1", info } }), { sessionID: "ses_1", type: "session", data: info });
  const msg = { id: "msg_1", sessionID: "ses_1" };
  assert.deepEqual(eventToItem({ type: "message.updated", properties: { info: msg } }), { sessionID: "ses_1", type: "message", data: msg });
  const part = { id: "prt_1", messageID: "msg_1", sessionID: "ses_1" };
  assert.deepEqual(eventToItem({ type: "message.part.updated", properties: { part } }), { sessionID: "ses_1", type: "part", data: part });
  assert.deepEqual(eventToItem({ type: "session.diff", properties: { sessionID: "ses_1", diff: [] } }), { sessionID: "ses_1", type: "session_diff", data: [] });
  for (const type of ["message.part.delta", "session.status", "session.idle", "plugin.added"]) {
    assert.equal(eventToItem({ type, properties: { sessionID: "ses_1" } }), null, type);
  }
});

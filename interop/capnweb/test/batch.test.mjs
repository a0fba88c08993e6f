// HTTP batch: newHttpBatchRpcSession sends every call made in one tick as
// one POST to /capnweb; pipelining works inside it, errors come back per
// call, and the session ends with the request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newHttpBatchRpcSession } from "capnweb";
import { WebSocket } from "ws";
import { UNAUTHORIZED, batchURL, capnwebURL, createShare, rejection, textOp, within } from "./helpers.mjs";

/** @typedef {import("../sharevat.d.ts").Vault} Vault */

test("HTTP batch: restore, pipelined append and read in one request", async () => {
  const { owner, id } = await createShare("batch");
  /** @type {import("capnweb").RpcStub<Vault>} */
  const vault = newHttpBatchRpcSession(batchURL);
  const restored = vault.restore(owner);
  const ack = restored.share.appender().append({ batchId: "hb", epoch: restored.access.epoch, ops: [textOp("hb-1", 0), textOp("hb-2", 1)] });
  const info = restored.info;
  const bad = vault.restore("svt1_not-a-token");
  const [a, i, err] = await within(Promise.all([ack, info, rejection(bad)]), "the batch");
  assert.deepEqual([a.applied, a.head], [2, 2]);
  assert.equal(i.id, id);
  assert.equal(err.message, UNAUTHORIZED);
  assert.equal(err.code, "unauthorized");

  // A second batch reads what the first appended.
  /** @type {import("capnweb").RpcStub<Vault>} */
  const vault2 = newHttpBatchRpcSession(batchURL);
  const reader = vault2.restore(owner).share.reader();
  const [{ ops, head }, limits] = await within(Promise.all([reader.read(0, 10), vault2.limits()]), "the second batch");
  assert.equal(head, 2);
  assert.deepEqual(ops.map((o) => [o.opId, o.batchId]), [["hb-1", "hb"], ["hb-2", "hb"]]);
  assert.deepEqual(ops[0].body, { type: "text", text: "hb-1" });
  assert.ok(limits.maxOpsPerBatch > 0);

  // The session ended with its request: a later call on it fails.
  await assert.rejects(within(vault.ping(), "a call after the batch"));
});

test("HTTP batch: a call never awaited runs all the same", async () => {
  const { owner } = await createShare("unawaited");
  /** @type {import("capnweb").RpcStub<Vault>} */
  const vault = newHttpBatchRpcSession(batchURL);
  const restored = vault.restore(owner);
  const appender = restored.share.appender();
  // Pushed, never pulled: the server runs them; only ping's answer comes back.
  for (let i = 0; i < 5; i++) appender.append({ batchId: "u", epoch: restored.access.epoch, ops: [textOp(`u-${i}`, 0)] });
  await within(vault.ping(), "the batch");

  /** @type {import("capnweb").RpcStub<Vault>} */
  const vault2 = newHttpBatchRpcSession(batchURL);
  const { head } = await within(vault2.restore(owner).share.reader().read(0, 10), "the read");
  assert.equal(head, 5);
});

test("HTTP batch: other methods than POST are refused", async () => {
  const res = await within(fetch(batchURL, { method: "PUT", body: "[]" }), "PUT /capnweb");
  assert.equal(res.status, 405);
  await res.body?.cancel();
});

test("a request from another origin is refused, WebSocket and batch alike", async () => {
  const origin = "http://evil.example";
  const res = await within(fetch(batchURL, { method: "POST", headers: { Origin: origin }, body: '["push",["pipeline",0,["ping"],[]]]' }), "the batch");
  assert.equal(res.status, 403);
  await res.body?.cancel();
  const status = await within(new Promise((resolve, reject) => {
    const ws = new WebSocket(capnwebURL, { origin });
    ws.on("unexpected-response", (_req, r) => { resolve(r.statusCode); r.resume(); ws.terminate(); });
    ws.on("open", () => { ws.terminate(); reject(new Error("the upgrade from another origin was accepted")); });
    ws.on("error", () => {});
  }), "the refused upgrade");
  assert.equal(status, 403);
});

// One-shot calls over HTTP batch: appendOnce and readOnce each in one
// POST, with the wire's errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { createShare, textOp, url } from "../helpers.mjs";

test("appendOnce and readOnce over HTTP batch: applied, duplicate, read back, unauthorized", async () => {
  const { token } = await createShare(pkg, "batch");
  const http = url.replace(/^ws/, "http");
  const ack = await pkg.appendOnce(http, token, { batchId: "once", ops: [textOp("o1", 0), textOp("o2", 1)] });
  assert.equal(ack.applied, 2);
  const again = await pkg.appendOnce(url, token, { ops: [textOp("o1", 0)] });
  assert.deepEqual(again.results.map((r) => [r.status, r.cursor]), [["duplicate", 1]]);
  const { ops, head } = await pkg.readOnce(url, token, 1, 10);
  assert.equal(head, 2);
  assert.deepEqual(ops.map((o) => o.opId), ["o2"]);
  const bad = "svt1_" + "a".repeat(24) + "_" + "b".repeat(43);
  const err = await pkg.appendOnce(url, bad, { ops: [textOp("x")] }).then(() => assert.fail("appended"), (e) => e);
  assert.ok(err instanceof pkg.SharevatError);
  assert.equal(err.message, "unauthorized: invalid or expired token");
  const down = await pkg.readOnce("http://127.0.0.1:1", token).then(() => assert.fail("read"), (e) => e);
  assert.equal(down.code, "unavailable");
  assert.ok(!down.message.includes(token.slice(30)));
});

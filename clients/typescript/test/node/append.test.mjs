// connect, redeem, Appender.append and Reader.read/snapshot/statePages on the
// compiled package against the suite's vat.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { createShare, textOp, url } from "../helpers.mjs";

test("append then read and snapshot what was appended, retries answered duplicate", async () => {
  const { token } = await createShare(pkg, "append");
  const conn = await pkg.connect(url);
  try {
    const share = await conn.redeem(token);
    const app = await share.appender();
    const ack = await app.append({ batchId: "b1", ops: [textOp("a", 0), textOp("b", 1)] });
    assert.equal(ack.applied, 2);
    assert.equal(ack.head, 2);
    const again = await app.append({ batchId: "b1", ops: [textOp("a", 0), textOp("b", 1)] });
    assert.deepEqual(again.results.map((r) => [r.status, r.cursor]), [["duplicate", 1], ["duplicate", 2]]);
    const rd = await share.reader();
    const { ops, head } = await rd.read(0, 10);
    assert.equal(head, 2);
    assert.deepEqual(ops.map((o) => [o.cursor, o.opId, o.batchId, o.body]), [
      [1, "a", "b1", { type: "text", text: "a" }],
      [2, "b", "b1", { type: "text", text: "b" }],
    ]);
    const snap = await rd.snapshot();
    assert.equal(snap.cursor, 2);
    assert.equal(snap.entities.length, 2);
  } finally {
    conn.close();
  }
});

test("statePages walks the state page by page in both orders", async () => {
  const { token } = await createShare(pkg, "pages");
  const conn = await pkg.connect(url);
  try {
    const share = await conn.redeem(token);
    const app = await share.appender();
    const ids = ["a", "b", "c", "d", "e"];
    await app.append({ batchId: "b1", ops: ids.map((id, i) => textOp(id, i)) });
    const rd = await share.reader();
    for (const [order, want] of [["byKey", ids], ["byChange", [...ids].reverse()]]) {
      const keys = [];
      let pages = 0;
      for await (const page of rd.statePages(order, 2)) {
        pages++;
        assert.ok(page.entities.length <= 2, `a page of ${page.entities.length}`);
        assert.equal(page.head, 5);
        keys.push(...page.entities.map((e) => e.key));
      }
      assert.deepEqual(keys, want.map((id) => `part-${id}`), order);
      assert.equal(pages, 3, order);
    }
  } finally {
    conn.close();
  }
});

test("a bad token is a SharevatError with code unauthorized that never quotes the token", async () => {
  const conn = await pkg.connect(url);
  try {
    const bad = "svt1_" + "a".repeat(24) + "_" + "b".repeat(43);
    const err = await conn.redeem(bad).then(() => assert.fail("redeemed"), (e) => e);
    assert.ok(err instanceof pkg.SharevatError, String(err));
    assert.equal(err.code, "unauthorized");
    assert.equal(err.message, "unauthorized: invalid or expired token");
    assert.ok(!String(err.stack).includes(bad));
  } finally {
    conn.close();
  }
});

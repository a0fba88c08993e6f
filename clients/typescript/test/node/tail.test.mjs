// The resumable tail and the reconnecting Redeemer: across 3 SIGKILLs of
// the vat, and through a fault proxy that drops replies and cuts
// connections, every op is handed over once, in cursor order; revoking
// the token ends the tail with "revoked".
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { adminToken, fault, faultURL, OwnVat, textOp, url } from "../helpers.mjs";

/** Fast reconnects and a quick dead-connection check, for tests. */
const quick = { minBackoffMs: 20, maxBackoffMs: 300, connect: { pingIntervalMs: 200, pongTimeoutMs: 1000 } };

/**
 * Collects what a tail hands over; `reach(n)` resolves once it has n ops.
 */
function collector() {
  /** @type {import("../../dist/index.js").LogEntry[]} */
  const got = [];
  /** @type {{n: number, resolve: () => void}[]} */
  let waits = [];
  return {
    got,
    /** @param {import("../../dist/index.js").LogEntry} e */
    handler(e) {
      got.push(e);
      waits = waits.filter((w) => (got.length >= w.n ? (w.resolve(), false) : true));
    },
    /** @param {number} n */
    reach(n) {
      return new Promise((resolve) => (got.length >= n ? resolve(undefined) : waits.push({ n, resolve })));
    },
  };
}

/** Appends ops named prefix-0..n-1 over a fresh connection to at. */
async function appendOver(at, token, prefix, n) {
  const conn = await pkg.connect(at);
  try {
    const app = await (await conn.redeem(token)).appender();
    const ops = Array.from({ length: n }, (_, i) => textOp(`${prefix}-${i}`, i));
    const ack = await app.append({ batchId: prefix, ops });
    assert.equal(ack.applied, n);
  } finally {
    conn.close();
  }
}

/** Asserts the tail got cursors 1..n, once each, in order, with the expected op ids. */
function assertExact(got, ids) {
  assert.deepEqual(got.map((e) => e.cursor), ids.map((_, i) => i + 1), "cursors 1..n, no gap, no repeat");
  assert.deepEqual(got.map((e) => e.opId), ids);
}

test("tail follows across 3 SIGKILLs of the vat with no gap and no repeat", async () => {
  const vat = new OwnVat();
  await vat.start();
  try {
    const conn = await pkg.connect(vat.url);
    const admin = await conn.redeemAdmin(vat.adminToken);
    const { owner } = await admin.createShare({ title: "kills" });
    conn.close();
    let redeems = 0;
    let retries = 0;
    let lost = 0;
    const r = new pkg.Redeemer(vat.url, owner.token, {
      ...quick,
      onRedeem: () => redeems++,
      onRetry: (err) => {
        assert.equal(err.code, "unavailable");
        retries++;
      },
      onLost: () => lost++,
    });
    const c = collector();
    const ended = pkg.tail(r, 0, c.handler);
    const ids = [];
    for (let round = 0; round < 4; round++) {
      await appendOver(vat.url, owner.token, `k${round}`, 25);
      ids.push(...Array.from({ length: 25 }, (_, i) => `k${round}-${i}`));
      if (round === 3) break;
      await c.reach(ids.length - 10); // killed while the tail may be mid-batch
      await vat.kill();
      await vat.start();
    }
    await c.reach(ids.length);
    r.close();
    await ended;
    assertExact(c.got, ids);
    assert.ok(redeems >= 4, `redeemed ${redeems} times`);
    assert.ok(lost >= 3, `lost ${lost} times`);
    assert.ok(retries >= 1, `retried ${retries} times`);
  } finally {
    await vat.dispose();
  }
});

test("tail and append through a proxy that drops replies and cuts connections", async () => {
  await fault.reset();
  const conn = await pkg.connect(url);
  const { owner } = await (await conn.redeemAdmin(adminToken)).createShare({ title: "faults" });
  conn.close();
  const r = new pkg.Redeemer(faultURL, owner.token, quick);
  const c = collector();
  const ended = pkg.tail(r, 0, c.handler);
  const ids = [];
  const add = async (prefix, n) => {
    await appendOver(url, owner.token, prefix, n);
    ids.push(...Array.from({ length: n }, (_, i) => `${prefix}-${i}`));
  };
  try {
    await add("f0", 10);
    await c.reach(ids.length);

    // Replies dropped: the tail's connection goes silent; ops appended meanwhile arrive once the proxy heals.
    await fault.drop(true);
    await add("f1", 10);
    const before = await fault.accepted();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a dead-connection check fires meanwhile
    await fault.reset();
    await c.reach(ids.length);
    assert.ok((await fault.accepted()) > before, "the tail connected again");

    // Connections cut, twice.
    for (const prefix of ["f2", "f3"]) {
      await fault.cut();
      await add(prefix, 10);
      await c.reach(ids.length);
    }

    // An append whose reply is lost: unavailable; sent again, duplicate at the original cursors.
    const share = await r.share();
    const app = await share.appender();
    const batch = { batchId: "lost", ops: [textOp("lost-0", 0), textOp("lost-1", 1)] };
    await fault.drop(true);
    const err = await app.append(batch).then(() => assert.fail("acked through a dropping proxy"), (e) => e);
    assert.equal(err.code, "unavailable");
    r.fail(share, err);
    await fault.reset();
    const ack = await (await (await r.share()).appender()).append(batch);
    assert.deepEqual(ack.results.map((x) => x.status), ["duplicate", "duplicate"]);
    ids.push("lost-0", "lost-1");
    assert.deepEqual(ack.results.map((x) => x.cursor), [ids.length - 1, ids.length]);
    await c.reach(ids.length);
    assertExact(c.got, ids);
  } finally {
    r.close();
    await ended;
    await fault.reset();
  }
});

test("tailIterator hands ops out in order and ends on break; revoking ends a tail with revoked", async () => {
  const conn = await pkg.connect(url);
  try {
    const { owner, share } = await (await conn.redeemAdmin(adminToken)).createShare({ title: "iter" });
    await (await share.appender()).append({ ops: [textOp("i0"), textOp("i1"), textOp("i2")] });
    const r = new pkg.Redeemer(url, owner.token, quick);
    const seen = [];
    const it = pkg.tailIterator(r, 1);
    for await (const e of it) {
      seen.push(e.opId);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, ["i1", "i2"]);
    assert.equal(it.cursor, 3);

    const reader = await share.grant({ read: true }, 0, "tail");
    const r2 = new pkg.Redeemer(url, reader.token, quick);
    const c = collector();
    const ended = pkg.tail(r2, 0, c.handler).then(() => "resolved", (e) => e);
    await c.reach(3);
    await share.revoke(reader.grantId);
    const err = await ended;
    assert.equal(err.code, "revoked");
    r.close();
    r2.close();
  } finally {
    conn.close();
  }
});

test("leaving a tailIterator while its subscription is still being set up ends it (30 times)", async () => {
  const conn = await pkg.connect(url);
  try {
    const { owner, share } = await (await conn.redeemAdmin(adminToken)).createShare({ title: "early break" });
    await (await share.appender()).append({ ops: Array.from({ length: 20 }, (_, i) => textOp(`b${i}`, i)) });
    const r = new pkg.Redeemer(url, owner.token, quick);
    try {
      for (let round = 0; round < 30; round++) {
        const it = pkg.tailIterator(r, 0);
        for await (const e of it) {
          assert.equal(e.opId, "b0");
          break;
        }
        assert.equal(it.cursor, 1);
      }
    } finally {
      r.close();
    }
  } finally {
    conn.close();
  }
});

// The outbox's behaviours against a real `sharevat serve`, on every storage
// backend this runtime has (file always; bun:sqlite on Bun; node:sqlite on
// Node >= 22.5): durable enqueue, stable batches across a lost reply,
// rejected ops kept as failed and reported once, a refused token keeping
// the ops, pruning, and the server's limits at enqueue.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Redeemer } from "../../dist/index.js";
import { Outbox, redeemerTarget, builtinSqlite } from "../../dist/outbox/index.js";
import { startVat, createShare, grant, revoke, readLog, limitsOf, tempDir, ev } from "./vat.mjs";

const storages = ["file", ...((await builtinSqlite()) ? ["sqlite"] : [])];
let vat;
before(async () => { vat = await startVat(); });
after(async () => { await vat?.stop(); });

const fast = { minBackoffMs: 10, maxBackoffMs: 100 };

for (const storage of storages) {
  const open = (path, opts = {}) => Outbox.open(path, { storage, ...fast, ...opts });

  test(`[${storage}] enqueue stores ops durably with op ids assigned, and a reopened outbox sends them in order`, async () => {
    const path = join(tempDir(), "ob");
    const ob = await open(path);
    const ids = await ob.enqueue([{ kind: "event", body: { n: 1 } }, ev("mine-2", 2), { kind: "part", key: "k", body: { n: 3 } }]);
    assert.equal(ids.length, 3);
    assert.match(ids[0], /^op-[0-9a-f]{32}$/);
    assert.equal(ids[1], "mine-2");
    await ob.close();

    const again = await open(path);
    assert.equal(again.status().pending, 3);
    assert.deepEqual(ids.map((id) => again.result(id).state), ["pending", "pending", "pending"]);
    const share = await createShare(vat);
    await again.flush(new Redeemer(vat.capnweb, share.token, fast));
    const log = await readLog(vat, share.token);
    assert.deepEqual(log.map((e) => e.opId), ids);
    assert.deepEqual(ids.map((id) => again.result(id).cursor), [1, 2, 3]);
    const st = again.status();
    assert.equal(st.pending, 0);
    assert.equal(st.share, share.id);
    assert.equal(st.head, 3);
    await again.close();
  });

  test(`[${storage}] a lost reply is resent with the same batch id and seqs and answered duplicate at the original cursor`, async () => {
    const ob = await open(join(tempDir(), "ob"), { maxBatchOps: 3 });
    const share = await createShare(vat);
    const real = redeemerTarget(new Redeemer(vat.capnweb, share.token, fast));
    let drop = 2; // the first two replies are lost after the vat applied the batch
    const lossy = {
      server: real.server, fail: real.fail, lastFailure: real.lastFailure, close: real.close,
      async session(signal) {
        const s = await real.session(signal);
        return {
          shareId: s.shareId, epoch: s.epoch, limits: () => s.limits(),
          async append(b) {
            const ack = await s.append(b);
            if (drop-- > 0) throw new Error("unavailable: connection lost (the test dropped the reply)");
            return ack;
          },
          _real: s,
        };
      },
    };
    const sends = [];
    const acks = [];
    ob.opts.onSend = (b, n) => sends.push([b, n]);
    ob.opts.onAck = (b, a) => acks.push([b, a]);
    const ids = await ob.enqueue([ev("a", 1), ev("b", 2), ev("c", 3), ev("d", 4)]);
    await ob.flush(lossy);
    assert.equal(sends.length, 4, "batch 1 sent 3 times, batch 2 once");
    assert.equal(sends[0][0], sends[1][0]);
    assert.equal(sends[1][0], sends[2][0]);
    assert.notEqual(sends[3][0], sends[0][0]);
    assert.deepEqual(acks[0][1].results.map((r) => [r.opId, r.status, r.cursor]), [["a", "duplicate", 1], ["b", "duplicate", 2], ["c", "duplicate", 3]]);
    const log = await readLog(vat, share.token);
    assert.deepEqual(log.map((e) => [e.opId, e.batchId, e.seq]), [["a", sends[0][0], 0], ["b", sends[0][0], 1], ["c", sends[0][0], 2], ["d", sends[3][0], 0]]);
    assert.deepEqual(ids.map((id) => ob.result(id).cursor), [1, 2, 3, 4]);
    assert.equal(ob.status().lastError, undefined, "the ack cleared the last error");
    await ob.close();
  });

  test(`[${storage}] a batch whose reply was lost keeps its batch id and seqs across a restart`, async () => {
    const path = join(tempDir(), "ob");
    const share = await createShare(vat);
    const ob = await open(path);
    await ob.enqueue([ev("r-1", 1), ev("r-2", 2)]);
    const real = redeemerTarget(new Redeemer(vat.capnweb, share.token, fast));
    const stop = new AbortController();
    const lost = {
      ...real,
      async session(signal) {
        const s = await real.session(signal);
        return { ...s, shareId: s.shareId, epoch: s.epoch, limits: () => s.limits(), async append(b) {
          await s.append(b);
          stop.abort();
          throw new Error("unavailable: connection lost (the test dropped the reply)");
        } };
      },
    };
    const first = [];
    ob.opts.onSend = (b) => first.push(b);
    await assert.rejects(ob.flush(lost, { signal: stop.signal }));
    real.close();
    await ob.close();
    const again = await open(path);
    const second = [];
    again.opts.onSend = (b) => second.push(b);
    const r = new Redeemer(vat.capnweb, share.token, fast);
    await again.flush(r);
    r.close();
    assert.deepEqual(second, [first[0]]);
    assert.equal(again.result("r-1").status, "duplicate");
    assert.deepEqual((await readLog(vat, share.token)).map((e) => [e.opId, e.batchId, e.seq]), [["r-1", first[0], 0], ["r-2", first[0], 1]]);
    await again.close();
  });

  test(`[${storage}] a rejected op is reported once, kept as failed and never resent`, async () => {
    const ob = await open(join(tempDir(), "ob"));
    const share = await createShare(vat);
    const target = new Redeemer(vat.capnweb, share.token, fast);
    const rejected = [];
    let sent = 0;
    ob.opts.onRejected = (r) => rejected.push(r);
    ob.opts.onSend = (_, n) => { sent += n; };
    await ob.enqueue([ev("ok-1", 1), { opId: "bad", kind: "event", body: { n: 2 }, expectedCursor: 99 }, ev("ok-2", 3)]);
    await ob.flush(target);
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].opId, "bad");
    assert.equal(rejected[0].reason, "conflict");
    assert.equal(ob.result("bad").state, "failed");
    assert.deepEqual(ob.failed().map((r) => r.opId), ["bad"]);
    assert.equal(ob.status().failed, 1);
    await ob.enqueue([ev("ok-3", 4)]);
    await ob.flush(target);
    assert.equal(sent, 4, "the failed op was not sent again");
    assert.equal(rejected.length, 1, "reported once");
    assert.deepEqual((await readLog(vat, share.token)).map((e) => e.opId), ["ok-1", "ok-2", "ok-3"]);
    target.close();
    await ob.close();
  });

  test(`[${storage}] a revoked token or one without the append right stops the flush with a clear error and keeps the ops`, async () => {
    const share = await createShare(vat);
    const cases = [];
    const appender = await grant(vat, share.token, { append: true });
    await revoke(vat, share.token, appender.grantId);
    cases.push(["revoked", appender.token, /^unauthorized: ws:\/\/.*\/capnweb refused the token: unauthorized: invalid or expired token$/]);
    const reader = await grant(vat, share.token, { read: true });
    cases.push(["read-only", reader.token, /^permissionDenied: ws:\/\/.*\/capnweb refused the append: permissionDenied: needs append/]);
    for (const [name, token, want] of cases) {
      const ob = await open(join(tempDir(), "ob"));
      await ob.enqueue([ev(`${name}-1`, 1), ev(`${name}-2`, 2)]);
      const err = await ob.flush(new Redeemer(vat.capnweb, token, fast)).then(() => assert.fail("flush succeeded"), (e) => e);
      assert.match(err.message, want, name);
      assert.ok(!err.message.includes(token), "no token in the error");
      const st = ob.status();
      assert.equal(st.pending, 2, `${name}: the ops are kept`);
      assert.ok(st.lastError && !st.lastError.msg.includes(token), `${name}: last error ${st.lastError?.msg}`);
      await ob.close();
    }
  });

  test(`[${storage}] acknowledged ops are pruned beyond keepDone and the file stays small`, async () => {
    const path = join(tempDir(), "ob");
    const ob = await open(path, { keepDone: 100 });
    const share = await createShare(vat);
    const target = new Redeemer(vat.capnweb, share.token, fast);
    const body = "x".repeat(2000);
    for (let chunk = 0; chunk < 10; chunk++) {
      await ob.enqueue(Array.from({ length: 100 }, (_, i) => ({ opId: `big-${chunk}-${i}`, kind: "event", body: { body } })));
      await ob.flush(target);
    }
    const st = ob.status();
    assert.equal(st.pending, 0);
    assert.equal(st.done, 100);
    assert.equal(ob.result("big-0-0").state, "unknown", "pruned");
    assert.equal(ob.result("big-9-99").state, "done");
    const { statSync } = await import("node:fs");
    const size = statSync(path).size;
    assert.ok(size < 1.5 * (1 << 20), `the file is ${size} bytes after 2 MB of ops went through`);
    target.close();
    await ob.close();
  });

  test(`[${storage}] enqueue refuses ops over the server's limits and bodies that are not JSON, in the server's words, storing nothing`, async () => {
    const lim = await limitsOf(vat);
    const ob = await open(join(tempDir(), "ob"), { limits: lim });
    const cases = [
      [{ opId: "big", kind: "event", body: "x".repeat(lim.maxBodyBytes) }, "tooLarge", `body is ${lim.maxBodyBytes + 2} bytes; limit is ${lim.maxBodyBytes}`],
      [{ opId: "kind", kind: "nope", body: 1 }, "invalid", 'unknown kind "nope" (the kinds are session, message, part, session_diff, model and event)'],
      [{ opId: "nokey", kind: "part", body: 1 }, "invalid", 'kind "part" needs a key'],
      [{ opId: "x".repeat(lim.maxOpIdLen + 1), kind: "event", body: 1 }, "invalid", `op id is ${lim.maxOpIdLen + 1} bytes; limit is ${lim.maxOpIdLen}`],
      [{ opId: "json", kind: "event", body: new TextEncoder().encode("{not json") }, "invalid", "body is not valid JSON"],
      [{ opId: "nan", kind: "event", body: { n: NaN } }, "invalid", "body is not a JSON value (NaN is not a JSON number)"],
    ];
    for (const [op, code, words] of cases) {
      const err = await ob.enqueue([ev("fine", 1), op]).then(() => assert.fail(`enqueued ${op.opId}`), (e) => e);
      assert.equal(err.code, code, err.message);
      assert.ok(err.message.endsWith(words), `${err.message} ends with ${words}`);
    }
    assert.equal(ob.status().pending, 0, "nothing stored");
    // The server words them the same way.
    const share = await createShare(vat);
    const { withVault } = await import("./vat.mjs");
    const ack = await withVault(vat.capnweb, (v) => { const r = v.restore(share.token); return r.share.appender().append({ epoch: r.access.epoch, ops: [{ opId: "kind", kind: "nope", body: 1 }, { opId: "nokey", kind: "part", body: 1 }] }); });
    assert.deepEqual(ack.results.map((r) => r.detail), [cases[1][2], cases[2][2]]);
    await ob.close();
  });

  test(`[${storage}] the limits a vat reports to a flush are kept and checked at enqueue, across a reopen`, async () => {
    const small = await startVat({ args: ["--max-body-bytes", "1000"] });
    try {
      const path = join(tempDir(), "ob");
      const ob = await open(path);
      const share = await createShare(small);
      const r = new Redeemer(small.capnweb, share.token, fast);
      await ob.enqueue([ev("first", 1)]);
      await ob.flush(r);
      r.close();
      const big = { opId: "big", kind: "event", body: "x".repeat(1500) };
      const err = await ob.enqueue([big]).then(() => assert.fail("enqueued"), (e) => e);
      assert.equal(err.message, "tooLarge: op big: body is 1502 bytes; limit is 1000");
      await ob.close();
      const again = await open(path);
      const err2 = await again.enqueue([big]).then(() => assert.fail("enqueued after reopen"), (e) => e);
      assert.equal(err2.message, err.message);
      assert.equal(again.status().pending, 0);
      await again.close();
    } finally {
      await small.stop();
    }
  });

  test(`[${storage}] an op id pending with other content is a conflict; with the same content it is kept once`, async () => {
    const ob = await open(join(tempDir(), "ob"));
    await ob.enqueue([ev("same", 1)]);
    await ob.enqueue([ev("same", 1)]);
    assert.equal(ob.status().pending, 1);
    const err = await ob.enqueue([ev("same", 2)]).then(() => assert.fail("enqueued"), (e) => e);
    assert.equal(err.code, "conflict");
    await ob.close();
  });
}

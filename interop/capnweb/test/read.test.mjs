// Reading over Cap'n Web: bodies are JSON values in both directions (not
// base64), stored as sent, and read back in order with their times as
// Dates; the snapshot applies deletes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cliOK, connect, createShare } from "./helpers.mjs";

test("read and snapshot answer JSON bodies as values", async () => {
  const { owner } = await createShare("read");
  const { vault } = connect();
  try {
    const { share, access } = await vault.restore(owner);
    const body = { role: "user", text: "héllo ✓", n: 1.5, big: 12345678901, list: [true, null, "x"], nested: { z: 1, a: 2 } };
    const ack = await share.appender().append({ batchId: "rd", epoch: access.epoch, ops: [
      { opId: "s1", seq: 0, kind: "session", key: "ses", body: { title: "read test" } },
      { opId: "m1", seq: 1, kind: "message", key: "msg1", body, dependsOn: ["s1"] },
      { opId: "e1", seq: 2, kind: "event", body: { type: "session.idle" } },
      { opId: "m2", seq: 3, kind: "message", key: "msg2", body: new TextEncoder().encode('{"text":"as bytes","k":[1,2]}') },
      { opId: "m2-del", seq: 4, kind: "message", key: "msg2", delete: true },
    ] });
    assert.deepEqual([ack.applied, ack.head], [5, 5], JSON.stringify(ack.results));

    const reader = share.reader();
    const { ops, head } = await reader.read(0, 100);
    assert.equal(head, 5);
    assert.deepEqual(ops.map((o) => [o.cursor, o.opId, o.batchId, o.seq, o.kind, o.key, o.delete]), [
      [1, "s1", "rd", 0, "session", "ses", false],
      [2, "m1", "rd", 1, "message", "msg1", false],
      [3, "e1", "rd", 2, "event", "", false],
      [4, "m2", "rd", 3, "message", "msg2", false],
      [5, "m2-del", "rd", 4, "message", "msg2", true],
    ]);
    assert.deepEqual(ops[1].body, body);
    assert.deepEqual(Object.keys(ops[1].body), Object.keys(body), "field order is kept");
    assert.deepEqual(Object.keys(ops[1].body.nested), ["z", "a"]);
    assert.deepEqual(ops[3].body, { text: "as bytes", k: [1, 2] }, "a Uint8Array of JSON text is stored as JSON");
    assert.equal(ops[4].body, undefined, "a delete carries no body");
    for (const o of ops) assert.ok(o.at instanceof Date, `op ${o.cursor}: at is a Date`);

    // Stored as JSON text, exactly as sent: the CLI over /rpc prints it.
    const viaRPC = (await cliOK(["read", "--json", "--from", "1", "--limit", "1"], { token: owner })).trim();
    assert.equal(JSON.parse(viaRPC).op_id, "m1");
    assert.ok(viaRPC.includes('"body":{"role":"user","text":"héllo ✓","n":1.5,"big":12345678901,"list":[true,null,"x"],"nested":{"z":1,"a":2}}'), viaRPC);

    // Paging: from a cursor, with a limit.
    const page = await reader.read(2, 2);
    assert.deepEqual(page.ops.map((o) => o.cursor), [3, 4]);
    assert.equal((await reader.read(5, 10)).ops.length, 0);

    // Integers: a bigint is accepted where a UInt64 is, a fraction or a negative is invalid.
    assert.deepEqual((await reader.read(2n ** 60n, 10)).ops, []);
    assert.deepEqual((await reader.read(3n, 1)).ops.map((o) => o.cursor), [4]);
    for (const bad of [1.5, -1]) {
      const err = await reader.read(bad, 10).then(() => null, (e) => e);
      assert.equal(err?.code, "invalid", `read(${bad}): ${err?.message}`);
    }
    // A UInt64 above 2^53-1 comes back as a bigint, one below as a number.
    const stored = await share.configure({ privacy: "redact", retainOps: 2n ** 60n, retainSeconds: 3600 });
    assert.deepEqual(stored, { privacy: "redact", retainOps: 2n ** 60n, retainSeconds: 3600 });
    await share.configure({});
    assert.deepEqual(await share.settings(), { privacy: "redact", retainOps: 0, retainSeconds: 0 }, "missing fields are the defaults");

    const snap = await reader.snapshot();
    assert.equal(snap.cursor, 5);
    const entities = Object.fromEntries(snap.entities.map((e) => [`${e.kind}/${e.key}`, e]));
    assert.deepEqual(Object.keys(entities).sort(), ["message/msg1", "session/ses"], "the deleted message is gone, events are not state");
    assert.deepEqual(entities["message/msg1"].body, body);
    assert.equal(entities["message/msg1"].cursor, 2);
    assert.ok(entities["session/ses"].at instanceof Date);
  } finally {
    vault[Symbol.dispose]();
  }
});

// Promise pipelining end to end: restore(token) → share.appender() →
// append(batch) costs one round trip. The socket's frames are counted: the
// client sends every message before it receives anything, and exactly one
// frame arrives before the ack resolves.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect, createShare, within } from "./helpers.mjs";

test("restore → appender → append is one round trip", async () => {
  const { owner } = await createShare("pipeline");
  const { vault, frames } = connect();
  try {
    const restored = vault.restore(owner);
    // The epoch too is pipelined: a promise on the restore not yet answered.
    const batch = { batchId: "p1", epoch: restored.access.epoch, ops: [{ opId: "p-1", seq: 0, kind: "event", body: { type: "piped" } }] };
    const ack = await within(restored.share.appender().append(batch), "the pipelined append");
    const atAck = frames.slice();
    assert.equal(ack.applied, 1);
    assert.equal(ack.head, 1);
    assert.deepEqual(ack.results.map((r) => [r.opId, r.status, r.cursor]), [["p-1", "applied", 1]]);

    const received = atAck.filter((f) => f.dir === "recv");
    assert.equal(received.length, 1, `one frame received before the ack resolved: ${JSON.stringify(atAck)}`);
    const firstRecv = atAck.findIndex((f) => f.dir === "recv");
    const sent = atAck.slice(0, firstRecv).map((f) => JSON.parse(f.data));
    // (After the answer, capnweb may already have sent a release of it.)
    assert.ok(atAck.slice(firstRecv + 1).every((f) => JSON.parse(f.data)[0] === "release"), JSON.stringify(atAck));
    // restore, appender, append pushed and the append pulled, all before any answer.
    assert.deepEqual(sent.map((m) => m[0]), ["push", "push", "push", "pull"], JSON.stringify(sent));
    const answer = JSON.parse(received[0].data);
    assert.equal(answer[0], "resolve");
    assert.equal(answer[1], sent[3][1], "the resolve answers the pulled append");
  } finally {
    vault[Symbol.dispose]();
  }
});

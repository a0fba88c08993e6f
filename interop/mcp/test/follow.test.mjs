// follow_ops, the bounded long poll: it answers an op appended while it
// waits (from another session), and snapshot and fork work on both
// transports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createShare, ok, transports } from "./helpers.mjs";

for (const [name, open] of Object.entries(transports)) {
  test(`follow, snapshot and fork over ${name}`, async (t) => {
    const token = await createShare(`follow ${name}`);
    const watcher = await open(token);
    const writer = await open(token);
    t.after(() => Promise.all([watcher.close(), writer.close()]));

    const waiting = ok(watcher, "follow_ops", { fromCursor: 0, waitSeconds: 60 });
    await ok(writer, "append_ops", { ops: [{ opId: "s1", kind: "session", key: "ses1", body: { title: "followed" } }] });
    const got = await waiting;
    assert.equal(got.ops.length, 1);
    assert.equal(got.ops[0].opId, "s1");
    assert.equal(got.nextCursor, 1);

    const snap = await ok(watcher, "snapshot");
    assert.equal(snap.entities.length, 1);
    assert.equal(snap.entities[0].body.title, "followed");

    const fork = await ok(writer, "fork", { title: `fork ${name}` });
    assert.equal(fork.at, 1);
    const child = await open(fork.owner.token);
    t.after(() => child.close());
    const info = await ok(child, "share_info");
    assert.equal(info.shareId, fork.shareId);
    assert.equal(info.forkCursor, 1);
  });
}

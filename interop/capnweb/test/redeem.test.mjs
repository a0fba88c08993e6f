// Redeeming tokens over Cap'n Web: restore answers the share, its access
// and its info in the documented shapes; every token that cannot be
// redeemed gets the same answer; tokens cross between /capnweb and /rpc.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UNAUTHORIZED, cli, cliOK, connect, createShare, rejection, textOp } from "./helpers.mjs";

test("restore answers {share, access, info} with the mapping's types", async () => {
  const { owner, ownerGrant, id } = await createShare("redeem");
  const { vault } = connect();
  try {
    await vault.ping();
    const { share, access, info } = await vault.restore(owner);
    assert.deepEqual(access.scope, { read: true, append: true, delegate: true, admin: true });
    assert.equal(access.grantId, ownerGrant);
    assert.equal(access.epoch, 1);
    assert.equal(access.expiresAt, null, "an owner token does not expire");
    assert.equal(info.id, id);
    assert.equal(info.head, 0);
    assert.equal(info.epoch, 1);
    assert.equal(info.parentId, "");
    assert.equal(info.deleted, false);
    assert.equal(info.meta.title, "redeem");
    assert.equal(info.meta.status, "idle", "a new share is idle");
    assert.ok(info.meta.createdAt instanceof Date, `createdAt is a Date: ${info.meta.createdAt}`);
    assert.ok(Math.abs(Date.now() - info.meta.createdAt.getTime()) < 60_000);
    // The share stub works, and answers info the same way.
    const again = await share.info();
    assert.equal(again.info.id, id);
    assert.deepEqual(again.access.scope, access.scope);
    const limits = await vault.limits();
    for (const k of ["maxBodyBytes", "maxOpsPerBatch", "maxBatchBytes", "maxOpIdLen", "maxKeyLen", "maxDependsOn"]) {
      assert.equal(typeof limits[k], "number", `limits.${k}`);
      assert.ok(limits[k] > 0, `limits.${k}`);
    }
  } finally {
    vault[Symbol.dispose]();
  }
});

test("every bad token gets the identical unauthorized answer", async () => {
  const { owner, id } = await createShare("bad tokens");
  const { vault } = connect();
  try {
    const { share } = await vault.restore(owner);
    const revokedGrant = await share.grant({ read: true }, 0, "to revoke");
    await share.revoke(revokedGrant.grantId);
    const grantId = owner.slice(5, 29);
    const otherSecret = owner.slice(0, 30) + (owner[30] === "A" ? "B" : "A") + owner.slice(31);
    // A share whose tokens die with an epoch bump, and one deleted.
    const fenced = await createShare("fenced");
    const { share: fencedShare } = await vault.restore(fenced.owner);
    const bumped = await fencedShare.bumpEpoch();
    assert.equal(bumped.epoch, 2);
    const deleted = await createShare("deleted");
    await vault.restore(deleted.owner).share.delete();

    const bad = {
      malformed: "not-a-token",
      empty: "",
      "unknown grant": "svt1_" + "a".repeat(24) + "_" + "A".repeat(43),
      "wrong secret": otherSecret,
      revoked: revokedGrant.token,
      "stale epoch": fenced.owner,
      "deleted share": deleted.owner,
    };
    for (const [what, token] of Object.entries(bad)) {
      const err = await rejection(vault.restore(token));
      assert.equal(err.message, UNAUTHORIZED, what);
      assert.equal(err.code, "unauthorized", what);
      assert.ok(!err.message.includes(grantId) && !(token && err.message.includes(token)), `${what}: the answer quotes no token`);
      // The same through restoreAdmin, for a wrong admin token.
      const adminErr = await rejection(vault.restoreAdmin(token));
      assert.equal(adminErr.message, UNAUTHORIZED, `restoreAdmin, ${what}`);
    }
    // The new owner token of the fenced share works at epoch 2.
    const { access } = await vault.restore(bumped.owner.token);
    assert.equal(access.epoch, 2);
    assert.ok(id);
  } finally {
    vault[Symbol.dispose]();
  }
});

test("a token minted over Cap'n Web works over /rpc, and one minted over /rpc works over Cap'n Web", async () => {
  const { owner } = await createShare("cross");
  const { vault } = connect();
  try {
    const appender = vault.restore(owner).share.appender();
    const { access } = await vault.restore(owner);
    const ack = await appender.append({ batchId: "b1", epoch: access.epoch, ops: [textOp("x1", 0, { type: "text", text: "from capnweb" })] });
    assert.equal(ack.applied, 1);

    // Minted over Cap'n Web (share.grant), used by the CLI over /rpc.
    const minted = await vault.restore(owner).share.grant({ read: true }, 3600, "cli reader");
    assert.deepEqual(minted.scope, { read: true, append: false, delegate: false, admin: false });
    assert.ok(minted.expiresAt instanceof Date);
    const lines = (await cliOK(["read", "--json"], { token: minted.token })).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].op_id, "x1");
    assert.deepEqual(lines[0].body, { type: "text", text: "from capnweb" });
    // Read-only over /rpc too: the CLI's append is refused.
    const refused = await cli(["append", "--quiet"], { token: minted.token, input: '{"op_id":"nope","kind":"event","body":{}}\n' });
    assert.equal(refused.code, 3, refused.stderr);

    // Minted by the CLI over /rpc (grant), used over Cap'n Web.
    const cliToken = (await cliOK(["grant", "--scope", "read,append", "--label", "capnweb writer"], { token: owner })).trim();
    assert.match(cliToken, /^svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}$/);
    const restored = await vault.restore(cliToken);
    assert.deepEqual(restored.access.scope, { read: true, append: true, delegate: false, admin: false });
    const ack2 = await restored.share.appender().append({ epoch: restored.access.epoch, ops: [textOp("x2", 0)] });
    assert.deepEqual([ack2.applied, ack2.head], [1, 2]);
    const err = await rejection(restored.share.grant({ read: true }, 0, "no delegate"));
    assert.equal(err.code, "permissionDenied");
    assert.match(err.message, /^permissionDenied: /);
  } finally {
    vault[Symbol.dispose]();
  }
});

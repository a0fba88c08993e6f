// Every Share method over the compiled package: info, update, grant,
// grants, revoke, bumpEpoch, fork, children, delete, settings, configure,
// compact, save; Admin's list, listAll, statuses, resetOwner.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { adminToken, createShare, textOp, url } from "../helpers.mjs";

/** @param {Promise<unknown>} p */
async function codeOf(p) {
  const err = await p.then(() => assert.fail("the call succeeded"), (e) => e);
  assert.ok(err instanceof pkg.SharevatError, String(err));
  assert.ok(!/svt1_[a-z0-9]/.test(err.message), err.message);
  return err.code;
}

test("Share: info, update, grant, grants, revoke, save", async () => {
  const { token, grantId } = await createShare(pkg, "share-methods");
  const conn = await pkg.connect(url);
  try {
    const share = await conn.redeem(token);
    assert.equal(share.access.grantId, grantId);
    assert.deepEqual(share.access.scope, { read: true, append: true, delegate: true, admin: true });
    const { info, access } = await share.info();
    assert.equal(info.meta.title, "share-methods");
    assert.equal(access.epoch, share.access.epoch);
    const updated = await share.update({ status: "busy", directory: "/src" });
    assert.equal(updated.meta.status, "busy");
    assert.equal(updated.meta.title, "share-methods");
    assert.ok(updated.meta.statusAt instanceof Date);

    const minted = await share.grant({ read: true }, 3600, "reader");
    assert.match(minted.token, /^svt1_/);
    const reader = await conn.redeem(minted.token);
    assert.deepEqual(reader.access.scope, { read: true, append: false, delegate: false, admin: false });
    assert.equal(await codeOf(reader.appender()), "permissionDenied");
    const grants = await share.grants();
    const g = grants.find((x) => x.id === minted.grantId);
    assert.equal(g?.label, "reader");
    assert.ok(!JSON.stringify(grants).includes(minted.token.slice(30)), "grants never carry a secret");

    await share.revoke(minted.grantId);
    assert.equal(await codeOf(reader.reader()), "revoked");
    assert.equal(await codeOf(conn.redeem(minted.token)), "unauthorized");

    const saved = await share.save(60, "self");
    assert.equal((await conn.redeem(saved.token)).access.scope.admin, true);
  } finally {
    conn.close();
  }
});

test("Share: settings, configure, compact, fork, children, bumpEpoch, delete", async () => {
  const { token } = await createShare(pkg, "lifecycle");
  const conn = await pkg.connect(url);
  try {
    const share = await conn.redeem(token);
    assert.deepEqual(await share.settings(), { privacy: "redact", retainOps: 0, retainSeconds: 0 });
    assert.equal((await share.configure({ privacy: "reject" })).privacy, "reject");
    const app = await share.appender();
    await app.append({ ops: [textOp("x1", 0), textOp("x2", 1), textOp("x3", 2)] });

    const { share: fork, owner } = await share.fork(2, { title: "the fork" });
    assert.equal(fork.shareInfo.parentId, share.shareInfo.id);
    assert.equal(fork.shareInfo.head, 2);
    assert.match(owner.token, /^svt1_/);
    assert.deepEqual((await share.children()).map((c) => c.meta.title), ["the fork"]);

    assert.equal(await share.compact(2), 2);
    assert.equal(await codeOf((await share.reader()).read(0, 10)), "compacted");

    const fenced = await share.bumpEpoch();
    assert.equal(fenced.epoch, share.access.epoch + 1);
    assert.equal(await codeOf(share.info()), "revoked");
    assert.equal(await codeOf(conn.redeem(token)), "unauthorized");
    const again = await conn.redeem(fenced.owner.token);
    assert.equal(again.access.epoch, fenced.epoch);
    await again.delete();
    assert.equal(await codeOf(conn.redeem(fenced.owner.token)), "unauthorized");
    // the fork lives on
    assert.equal((await conn.redeem(owner.token)).shareInfo.meta.title, "the fork");
  } finally {
    conn.close();
  }
});

test("Admin: createShare, list, listAll, statuses, resetOwner", async () => {
  const conn = await pkg.connect(url);
  try {
    const admin = await conn.redeemAdmin(adminToken);
    const project = `p-${Date.now()}`;
    const made = [];
    for (const title of ["one", "two", "three"]) {
      const { share } = await admin.createShare({ title, projectId: project });
      made.push(share.shareInfo.id);
    }
    const page = await admin.list({ projectId: project, limit: 2 });
    assert.equal(page.shares.length, 2);
    assert.notEqual(page.nextPageToken, "");
    const all = [];
    for await (const s of admin.listAll({ projectId: project, limit: 2 })) all.push(s.id);
    assert.deepEqual(all.sort(), [...made].sort());
    assert.ok((await admin.statuses()).some((s) => s.id === made[0]));
    const reset = await admin.resetOwner(made[0]);
    assert.equal((await conn.redeem(reset.owner.token)).access.epoch, reset.epoch);
    assert.equal(await codeOf(conn.redeemAdmin("svt1_nope")), "unauthorized");
  } finally {
    conn.close();
  }
});

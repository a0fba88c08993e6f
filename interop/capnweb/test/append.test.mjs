// Appending over Cap'n Web: a retry is answered duplicate at the first
// cursor, and each rejection reason of the schema comes back in the ack
// as its string, per op, without failing the call.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect, createShare, rejection, textOp } from "./helpers.mjs";

test("a retried batch is answered duplicate at its first cursors", async () => {
  const { owner } = await createShare("duplicates");
  const { vault } = connect();
  try {
    const { share, access } = await vault.restore(owner);
    const appender = share.appender();
    const batch = { batchId: "d1", epoch: access.epoch, ops: [textOp("d-1", 0), textOp("d-2", 1)] };
    const first = await appender.append(batch);
    assert.deepEqual([first.applied, first.duplicates, first.rejected, first.head], [2, 0, 0, 2]);
    const retry = await appender.append(batch);
    assert.deepEqual([retry.applied, retry.duplicates, retry.rejected, retry.head], [0, 2, 0, 2]);
    assert.deepEqual(retry.results.map((r) => [r.opId, r.status, r.cursor, r.reason]), [
      ["d-1", "duplicate", 1, "none"],
      ["d-2", "duplicate", 2, "none"],
    ]);
  } finally {
    vault[Symbol.dispose]();
  }
});

test("every rejection reason", async () => {
  const { owner } = await createShare("rejections");
  const { vault } = connect();
  try {
    const { share, access } = await vault.restore(owner);
    const appender = share.appender();
    const limits = await vault.limits();
    const epoch = access.epoch;
    const base = await appender.append({ epoch, ops: [textOp("r-base", 0, { type: "text", text: "original" })] });
    assert.equal(base.head, 1);

    /** @type {Record<string, [import("../sharevat.d.ts").Op, number?]>} */
    const cases = {
      idReused: [textOp("r-base", 0, { type: "text", text: "different content" })],
      staleEpoch: [textOp("r-stale", 0), epoch + 1],
      missingDependency: [{ ...textOp("r-dep", 0), dependsOn: ["no-such-op"] }],
      conflict: [{ ...textOp("r-conflict", 0), expected: { cursor: 99 } }],
      invalid: [{ opId: "r-invalid", seq: 0, kind: "no-such-kind", key: "k", body: {} }],
      tooLarge: [textOp("r-large", 0, { type: "text", text: "x".repeat(limits.maxBodyBytes) })],
    };
    for (const [reason, [op, batchEpoch]] of Object.entries(cases)) {
      const ack = await appender.append({ batchId: `b-${reason}`, epoch: batchEpoch ?? epoch, ops: [op] });
      assert.deepEqual([ack.applied, ack.rejected, ack.head], [0, 1, 1], reason);
      const [r] = ack.results;
      assert.equal(r.status, "rejected", reason);
      assert.equal(r.reason, reason, `${reason}: ${r.detail}`);
      assert.ok(r.detail.length > 0, `${reason} has a detail`);
      if (reason === "idReused") assert.equal(r.cursor, 1, "idReused names the original's cursor");
    }

    // The expected cursor that is the head applies; a union member of none too.
    const ok = await appender.append({ epoch, ops: [
      { ...textOp("r-expected", 0), expected: { cursor: 1 } },
      { ...textOp("r-none", 1), expected: { none: null } },
    ] });
    assert.deepEqual(ok.results.map((r) => r.status), ["applied", "applied"]);

    // secret: under privacy "reject" a secret-shaped string is refused;
    // under the default "redact" it would be replaced.
    const settings = await share.configure({ privacy: "reject" });
    assert.equal(settings.privacy, "reject");
    assert.deepEqual(await share.settings(), settings);
    const awsKey = "AKIA" + "FAKEQ7XZ2M4PLR6T";
    const secret = await appender.append({ epoch, ops: [textOp("r-secret", 0, { type: "text", text: `export AWS_ACCESS_KEY_ID=${awsKey}` })] });
    assert.equal(secret.results[0].status, "rejected");
    assert.equal(secret.results[0].reason, "secret", secret.results[0].detail);
    assert.ok(!secret.results[0].detail.includes(awsKey), "the detail does not quote the secret");

    // A value outside the schema is refused with invalid, as the call's error.
    const bad = await rejection(share.configure({ privacy: "sometimes" }));
    assert.equal(bad.code, "invalid", bad.message);
  } finally {
    vault[Symbol.dispose]();
  }
});

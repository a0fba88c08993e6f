// The package under Bun (its global WebSocket, the TypeScript sources run
// as they are): append and read, a tail and its iterator, the errors, and
// every Share method the Node suite covers in depth, against the suite's vat.
import { expect, test } from "bun:test";
import * as pkg from "../../src/index.ts";
// plain JS helpers shared with the Node suite
import { adminToken, createShare, fault, faultURL, textOp, url } from "../helpers.mjs";

const quick = { minBackoffMs: 20, maxBackoffMs: 300, connect: { pingIntervalMs: 200, pongTimeoutMs: 1000 } };

test("append, read, snapshot and duplicates under Bun", async () => {
  expect(typeof (globalThis as { Bun?: unknown }).Bun).toBe("object");
  const { token } = await createShare(pkg, "bun-append");
  const conn = await pkg.connect(url);
  try {
    const share = await conn.redeem(token);
    const app = await share.appender();
    const ack = await app.append({ batchId: "b", ops: [textOp("a", 0), textOp("b", 1)] });
    expect(ack.applied).toBe(2);
    const again = await app.append({ batchId: "b", ops: [textOp("a", 0)] });
    expect(again.results[0]).toMatchObject({ status: "duplicate", cursor: 1 });
    const rd = await share.reader();
    const { ops, head } = await rd.read(0, 0);
    expect(head).toBe(2);
    expect(ops.map((o) => o.body)).toEqual([{ type: "text", text: "a" }, { type: "text", text: "b" }]);
    expect((await rd.snapshot()).cursor).toBe(2);
  } finally {
    conn.close();
  }
});

test("errors are SharevatErrors with the wire code and no token", async () => {
  const conn = await pkg.connect(url);
  try {
    const bad = "svt1_" + "a".repeat(24) + "_" + "b".repeat(43);
    const err = await conn.redeem(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(pkg.SharevatError);
    expect((err as pkg.SharevatError).code).toBe("unauthorized");
    expect(String((err as Error).stack)).not.toContain(bad);
    const { token } = await createShare(pkg, "bun-perm");
    const share = await conn.redeem(token);
    const ro = await conn.redeem((await share.grant({ read: true })).token);
    const denied = await ro.appender().catch((e: unknown) => e);
    expect((denied as pkg.SharevatError).code).toBe("permissionDenied");
  } finally {
    conn.close();
  }
  const down = await pkg.connect("ws://127.0.0.1:1/capnweb").catch((e: unknown) => e);
  expect((down as pkg.SharevatError).code).toBe("unavailable");
});

test("share methods under Bun: update, grants, fork, children, settings, bumpEpoch, delete", async () => {
  const conn = await pkg.connect(url);
  try {
    const admin = await conn.redeemAdmin(adminToken);
    const { share } = await admin.createShare({ title: "bun-share" });
    expect((await share.update({ status: "idle" })).meta.status).toBe("idle");
    expect((await share.grants()).length).toBe(1);
    await (await share.appender()).append({ ops: [textOp("f1"), textOp("f2")] });
    const { share: fork } = await share.fork(1, { title: "bun-fork" });
    expect(fork.shareInfo.head).toBe(1);
    expect((await share.children()).map((c) => c.id)).toEqual([fork.shareInfo.id]);
    expect((await share.settings()).privacy).toBe("redact");
    const fenced = await share.bumpEpoch();
    const owner = await conn.redeem(fenced.owner.token);
    await owner.delete();
    expect(((await conn.redeem(fenced.owner.token).catch((e: unknown) => e)) as pkg.SharevatError).code).toBe("unauthorized");
  } finally {
    conn.close();
  }
});

test("a tail through a proxy that cuts connections hands every op over once, in order", async () => {
  await fault.reset();
  const { token } = await createShare(pkg, "bun-tail");
  const r = new pkg.Redeemer(faultURL, token, quick);
  const got: pkg.LogEntry[] = [];
  let want = 0;
  let reached: (() => void) | undefined;
  const ended = pkg.tail(r, 0, (e) => {
    got.push(e);
    if (got.length >= want) reached?.();
  });
  const appendAndWait = async (prefix: string) => {
    const conn = await pkg.connect(url);
    await (await (await conn.redeem(token)).appender()).append({ ops: [0, 1, 2, 3, 4].map((i) => textOp(`${prefix}-${i}`, i)) });
    conn.close();
    want += 5;
    if (got.length < want) await new Promise<void>((res) => (reached = res));
  };
  try {
    await appendAndWait("t0");
    await fault.cut();
    await appendAndWait("t1");
    await fault.cut();
    await appendAndWait("t2");
    expect(got.map((e) => e.cursor)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const seen: string[] = [];
    for await (const e of pkg.tailIterator(r, 12)) {
      seen.push(e.opId);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(["t2-2", "t2-3", "t2-4"]);
  } finally {
    r.close();
    await ended;
  }
});

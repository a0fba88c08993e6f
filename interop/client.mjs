#!/usr/bin/env node
// The interop client: a Cap'n Proto RPC peer that is not Go (capnp-es over
// the `ws` WebSocket package) redeems a sharevat token, appends a batch and
// reads it back. See README.md.
//
//   SHAREVAT_URL=ws://127.0.0.1:7420/rpc SHAREVAT_TOKEN=svt1_... node client.mjs [--prefix P]
//
// Flags (each also as env): --url (SHAREVAT_URL), --token (SHAREVAT_TOKEN;
// prefer the env: argv is visible in ps), --prefix (INTEROP_PREFIX, the op id
// prefix, default "node"), --timeout-ms (INTEROP_TIMEOUT_MS, default 20000).
//
// Exit 0 when every check passed, 1 otherwise (the failed check on stderr),
// 2 on a usage error. On success stdout gets one JSON line:
// {"ok":true,"share":...,"epoch":...,"opIds":[...],"cursors":[...],"head":...}.

import { Conn } from "capnp-es";
import { Vault, OpStatus, Reason } from "./gen/sharevat.js";
import { WebSocketTransport } from "./transport.mjs";

function parseArgs(argv) {
  const opts = {
    url: process.env.SHAREVAT_URL || "ws://127.0.0.1:7420/rpc",
    token: process.env.SHAREVAT_TOKEN || "",
    prefix: process.env.INTEROP_PREFIX || "node",
    timeoutMs: Number(process.env.INTEROP_TIMEOUT_MS || 20000),
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case "--url": opts.url = value(); break;
      case "--token": opts.token = value(); break;
      case "--prefix": opts.prefix = value(); break;
      case "--timeout-ms": opts.timeoutMs = Number(value()); break;
      default: usage(`unknown argument ${argv[i]}`);
    }
  }
  if (!opts.token) usage("no token: set SHAREVAT_TOKEN (or --token)");
  if (!(opts.timeoutMs > 0)) usage("--timeout-ms must be a positive number");
  return opts;
}

function usage(msg) {
  console.error(`interop client: ${msg}\nusage: SHAREVAT_TOKEN=svt1_... node client.mjs [--url ws://host:port/rpc] [--prefix P] [--timeout-ms N]`);
  process.exit(2);
}

class CheckError extends Error {}

function check(cond, what) {
  if (!cond) throw new CheckError(what);
}

function eq(got, want, what) {
  check(got === want, `${what}: got ${fmt(got)}, want ${fmt(want)}`);
}

function fmt(v) {
  return typeof v === "bigint" ? `${v}n` : JSON.stringify(v);
}

// The reason of a Cap'n Proto exception as capnp-es reports it: a failed
// method call is "CAPNP-TS116 RPC method failed at <iface>.<method>(): <reason>".
function exceptionReason(err) {
  const m = /RPC method failed at [^(]*\(\): ([\s\S]*)$/.exec(err?.message ?? "");
  return m ? m[1] : null;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

// The ops this client appends, in batch order (cxx/client.c++ appends the
// same). Their shapes exercise text, data, a text list, the `expected`
// union and a bool.
function makeOps(prefix) {
  return [
    { opId: `${prefix}-s1`, kind: "session", key: `${prefix}-ses`, body: { title: "interop" }, dependsOn: [] },
    { opId: `${prefix}-m1`, kind: "message", key: `${prefix}-msg1`, body: { role: "user", text: "héllo ✓" }, dependsOn: [`${prefix}-s1`] },
    { opId: `${prefix}-e1`, kind: "event", key: "", body: { type: "session.idle" }, dependsOn: [] },
    { opId: `${prefix}-m1-del`, kind: "message", key: `${prefix}-msg1`, body: null, delete: true, dependsOn: [`${prefix}-m1`] },
  ];
}

function fillBatch(batch, batchId, epoch, ops, head) {
  batch.batchId = batchId;
  batch.epoch = epoch;
  const list = batch._initOps(ops.length);
  ops.forEach((o, i) => {
    const op = list.get(i);
    op.opId = o.opId;
    op.seq = i;
    if (o.dependsOn.length) {
      const deps = op._initDependsOn(o.dependsOn.length);
      o.dependsOn.forEach((d, j) => deps.set(j, d));
    }
    const exp = op._initExpected();
    // The first op states the head it expects (the union's cursor arm);
    // the others say none.
    if (i === 0) exp.cursor = head;
    else exp.none = true;
    op.kind = o.kind;
    if (o.key) op.key = o.key;
    if (o.body !== null) {
      const bytes = enc.encode(JSON.stringify(o.body));
      op._initBody(bytes.length).copyBuffer(bytes);
    }
    if (o.delete) op.delete = true;
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const deadline = setTimeout(() => {
    console.error(`interop client: FAIL: not done after ${opts.timeoutMs} ms`);
    process.exit(1);
  }, opts.timeoutMs);
  deadline.unref();

  const t = await WebSocketTransport.connect(opts.url, { timeoutMs: opts.timeoutMs });
  const conn = new Conn(t);
  conn.onError = (err) => t.fail(new Error(`capnp-es connection error: ${err?.message ?? err}`));
  const step = (name) => process.stderr.write(`interop client: ${name}\n`);

  try {
    // Bootstrap, and wait for it to resolve before the first call.
    const vault = conn.bootstrap(Vault);
    await t.race(vault.client.pipeline.struct());
    step("bootstrap resolved");

    await t.race(vault.ping().promise());
    step("ping ok");

    // A bad token: the exception's reason starts with "unauthorized: ".
    const bad = "svt1_AAAAAAAAAAAAAAAAAAAAAAAA_" + "A".repeat(43);
    let refused = null;
    try {
      await t.race(vault.restore((p) => { p.token = bad; }).promise());
    } catch (err) {
      refused = err;
    }
    check(refused !== null, "restore(bad token) succeeded");
    const reason = exceptionReason(refused);
    check(reason !== null, `restore(bad token) failed without a Cap'n Proto exception: ${refused?.message}`);
    check(reason.startsWith("unauthorized: "), `restore(bad token) reason ${fmt(reason)} does not start with "unauthorized: "`);
    check(!reason.includes(bad), "the refusal echoes the token");
    step(`bad token refused: ${reason}`);

    // restore, with appender() and reader() pipelined on its promised
    // share: three calls sent before the first answer arrives.
    const restored = vault.restore((p) => { p.token = opts.token; });
    const appender = restored.getShare().appender().getAppender();
    const reader = restored.getShare().reader().getReader();
    const r = await t.race(restored.promise());
    const access = r.access;
    const info = r.info;
    const epoch = access.epoch;
    const head0 = info.head;
    check(access.scope.read && access.scope.append, "owner token lacks read or append");
    check(typeof epoch === "bigint" && epoch >= 1n, `access.epoch ${fmt(epoch)}`);
    check(info.id.length > 0, "info.id is empty");
    step(`restored share ${info.id} (grant ${access.grantId}, epoch ${epoch}, head ${head0})`);

    // info() on the returned Share, now through its import.
    const si = await t.race(r.share.info().promise());
    eq(si.info.id, info.id, "info().info.id");
    eq(si.access.grantId, access.grantId, "info().access.grantId");

    // append
    const ops = makeOps(opts.prefix);
    const batchId = `${opts.prefix}-batch-1`;
    const appendOnce = () =>
      t.race(appender.append((p) => fillBatch(p._initBatch(), batchId, epoch, ops, head0)).promise());
    const ack = (await appendOnce()).ack;
    eq(ack.applied, ops.length, "ack.applied");
    eq(ack.duplicates, 0, "ack.duplicates");
    eq(ack.rejected, 0, "ack.rejected");
    eq(ack.head, head0 + BigInt(ops.length), "ack.head");
    eq(ack.results.length, ops.length, "ack.results.length");
    const cursors = [];
    ack.results.forEach((res, i) => {
      eq(res.opId, ops[i].opId, `ack.results[${i}].opId`);
      eq(res.status, OpStatus.APPLIED, `ack.results[${i}].status`);
      eq(res.reason, Reason.NONE, `ack.results[${i}].reason`);
      eq(res.cursor, head0 + BigInt(i + 1), `ack.results[${i}].cursor`);
      cursors.push(res.cursor);
    });
    step(`appended ${ops.length} ops, head ${ack.head}`);

    // The same batch again: every op is a duplicate at its first cursor.
    const again = (await appendOnce()).ack;
    eq(again.applied, 0, "retry ack.applied");
    eq(again.duplicates, ops.length, "retry ack.duplicates");
    eq(again.head, ack.head, "retry ack.head");
    again.results.forEach((res, i) => {
      eq(res.status, OpStatus.DUPLICATE, `retry ack.results[${i}].status`);
      eq(res.cursor, cursors[i], `retry ack.results[${i}].cursor`);
    });
    step("retry answered duplicate at the same cursors");

    // A stale epoch is rejected per op, not thrown.
    const stale = (await t.race(appender.append((p) =>
      fillBatch(p._initBatch(), `${opts.prefix}-batch-stale`, epoch + 1n,
        [{ opId: `${opts.prefix}-stale`, kind: "event", key: "", body: {}, dependsOn: [] }], ack.head)).promise())).ack;
    eq(stale.rejected, 1, "stale-epoch ack.rejected");
    eq(stale.results[0].reason, Reason.STALE_EPOCH, "stale-epoch reason");
    step("stale epoch rejected");

    // read(0, 100): the whole log of a fresh share (on a share with a
    // longer log, from just before this client's ops).
    const from = head0 + BigInt(ops.length) <= 100n ? 0n : head0;
    const rd = await t.race(reader.read((p) => { p.fromCursor = from; p.limit = 100; }).promise());
    eq(rd.head, ack.head, "read head");
    const entries = [...rd.ops].filter((e) => e.cursor > head0);
    eq(entries.length, ops.length, "ops read back");
    entries.forEach((e, i) => {
      const o = ops[i];
      eq(e.cursor, cursors[i], `read[${i}].cursor`);
      eq(e.opId, o.opId, `read[${i}].opId`);
      eq(e.batchId, batchId, `read[${i}].batchId`);
      eq(e.seq, i, `read[${i}].seq`);
      eq(e.kind, o.kind, `read[${i}].kind`);
      eq(e.key, o.key, `read[${i}].key`);
      eq(e.delete, !!o.delete, `read[${i}].delete`);
      if (o.body !== null) {
        eq(JSON.stringify(JSON.parse(dec.decode(e.body.toUint8Array()))), JSON.stringify(o.body), `read[${i}].body`);
      }
      check(e.at > 0n, `read[${i}].at is unset`);
    });
    step(`read back ${entries.length} ops`);

    console.log(JSON.stringify({
      ok: true,
      share: info.id,
      epoch: Number(epoch),
      opIds: ops.map((o) => o.opId),
      cursors: cursors.map(Number),
      head: Number(ack.head),
    }));
    step("PASS");
    await t.shutdown();
    process.exit(0);
  } catch (err) {
    const what = err instanceof CheckError ? err.message : (err?.stack ?? String(err));
    console.error(`interop client: FAIL: ${what}`);
    await t.shutdown().catch(() => {});
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(`interop client: FAIL: ${err?.stack ?? err}`);
  process.exit(1);
});

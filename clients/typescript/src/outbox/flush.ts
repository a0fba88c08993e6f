// Flush: send every pending op, one batch at a time, until each is acked.
// The Go client's Outbox.Flush and its last-error wording
// (client/outbox.go, client/outbox_lasterror.go).

import { randomBytes } from "node:crypto";
import { SharevatError, codeOf, isPermanent, messageOf, type ErrorCode } from "./errors.js";
import type { Frame, PendingRec } from "./frames.js";
import { State } from "./state.js";
import { backoff, sleep, type OutboxSession, type OutboxTarget } from "./target.js";
import type { Ack, Limits, WireBatch, WireOp } from "./types.js";
import { checkOp, opSize } from "./validate.js";
import type { Outbox } from "./outbox.js";

/** Options of one flush. */
export interface FlushOptions {
  /** Ends the flush: it rejects, recording why the batch was not delivered. */
  signal?: AbortSignal;
}

interface Ctx {
  ob: Outbox;
  target: OutboxTarget;
  signal: AbortSignal;
  limitsOf?: OutboxSession;
}

/**
 * Sends pending ops through target until none is pending. A transport
 * error leaves the batch pending: the session is dropped (target.fail),
 * and the same batch (same batch id, seqs and op ids) is sent again on the
 * next one, pausing with backoff when sends keep failing. It rejects at
 * once on a permanent error (the token refused or revoked, no append
 * right, a share other than the bound one), when signal aborts, or when
 * the outbox is closed; the ops stay pending and status().lastError says
 * why.
 */
export async function flush(ob: Outbox, target: OutboxTarget, opts: FlushOptions): Promise<void> {
  const signal = opts.signal ? AbortSignal.any([opts.signal, ob.closer.signal]) : ob.closer.signal;
  const ctx: Ctx = { ob, target, signal };
  for (;;) {
    const recs = await next(ob);
    if (recs.length === 0) {
      await ob.write(() => ob.maybeCompact());
      return;
    }
    if (signal.aborted) await stopped(ctx, undefined, signal.reason);
    await send(ctx, recs);
  }
}

/** The assigned batch at the front, or a new one assigned durably; [] when nothing is pending. */
async function next(ob: Outbox): Promise<PendingRec[]> {
  return ob.write(async () => {
    const s = ob.state;
    if (s.assigned().length > 0 || s.pendingCount() === 0) return s.assigned();
    const q = s.queue();
    let n = 0;
    let size = 0;
    while (n < q.length && n < Math.max(ob.opts.maxBatchOps, 1)) {
      size += opSize(q[n]!.op);
      if (n > 0 && size > ob.opts.maxBatchBytes) break;
      n++;
    }
    await ob.commit([{ t: "asg", b: "batch-" + randomBytes(16).toString("hex"), n }]);
    return s.assigned();
  });
}

/** Sends recs until acked, or a permanent error, the signal or a local failure stops it. */
async function send(ctx: Ctx, recs: PendingRec[]): Promise<void> {
  const { ob, target, signal } = ctx;
  let sendErr: unknown;
  for (let failures = 0; ; failures++) {
    let session: OutboxSession;
    try {
      if (failures >= 2) await sleep(backoff(ob.opts.minBackoffMs, ob.opts.maxBackoffMs, failures - 2), signal);
      session = await target.session(signal);
      await bind(ctx, session);
    } catch (e) {
      return stopped(ctx, sendErr, e);
    }
    const local = undeliverable(ctx, recs);
    if (local) return acked(ctx, recs, local);
    const batch = toWire(recs, session.epoch);
    ob.opts.onSend?.(batch.batchId, batch.ops.length);
    try {
      const ack = await abortable(session.append(batch), signal);
      return acked(ctx, recs, ack);
    } catch (e) {
      if (!signal.aborted) target.fail(session, e);
      if (isPermanent(e) || signal.aborted) return stopped(ctx, sendErr, e);
      sendErr = e;
      await ob.write(() => ob.commit([{ t: "err", msg: messageOf(e), at: new Date().toISOString() }]));
    }
  }
}

/** The errors the outbox makes itself (not the server's answers). */
const local = new WeakSet<object>();

/** Ties the outbox to session's share (and notes the server's limits), once per session. */
async function bind(ctx: Ctx, session: OutboxSession): Promise<void> {
  if (ctx.limitsOf === session) return;
  const { ob, target } = ctx;
  const s = ob.state;
  if (s.share && s.share !== session.shareId) {
    const e = new SharevatError("invalid", `the outbox ${ob.path} serves share ${s.share}; this token is of share ${session.shareId}`);
    local.add(e);
    throw e;
  }
  const limits = await session.limits().catch(() => undefined);
  const frames: Frame[] = [];
  if (s.share !== session.shareId || s.server !== target.server) frames.push({ t: "bind" as const, share: session.shareId, server: target.server });
  if (limits && JSON.stringify(limits) !== JSON.stringify(s.limits)) frames.push({ t: "lim" as const, limits: plainLimits(limits) });
  if (frames.length) await ob.write(() => ob.commit(frames));
  ctx.limitsOf = session;
}

function plainLimits(l: Limits): Limits {
  return {
    maxBodyBytes: Number(l.maxBodyBytes), maxOpsPerBatch: Number(l.maxOpsPerBatch), maxBatchBytes: Number(l.maxBatchBytes),
    maxOpIdLen: Number(l.maxOpIdLen), maxKeyLen: Number(l.maxKeyLen), maxDependsOn: Number(l.maxDependsOn),
  };
}

/** The answer for a batch of one op the server could never take (over its limits): rejected here, not sent. */
function undeliverable(ctx: Ctx, recs: PendingRec[]): Ack | undefined {
  const lim = ctx.ob.state.limits;
  if (recs.length !== 1 || !lim) return undefined;
  const bad = checkOp(recs[0]!.op, lim);
  if (!bad) return undefined;
  const detail = `${bad.message}; not sent: over the server's limits`;
  return { head: 0, results: [{ opId: recs[0]!.op.id, status: "rejected", cursor: 0, reason: bad.reason, detail }] };
}

const enc = new TextEncoder();

function toWire(recs: PendingRec[], epoch: number): WireBatch {
  const ops = recs.map((r): WireOp => {
    const o: WireOp = { opId: r.op.id, seq: r.bs ?? 0, kind: r.op.kind };
    if (r.op.key) o.key = r.op.key;
    if (r.op.body !== undefined) o.body = enc.encode(r.op.body);
    if (r.op.del) o.delete = true;
    if (r.op.deps) o.dependsOn = r.op.deps;
    if (r.op.expect !== undefined) o.expected = { cursor: r.op.expect };
    return o;
  });
  return { batchId: recs[0]!.b!, epoch, ops };
}

/** Records ack for recs, then tells onAck and onRejected. */
async function acked(ctx: Ctx, recs: PendingRec[], ack: Ack): Promise<void> {
  const { ob } = ctx;
  const b = recs[0]!.b!;
  const r = State.match(b, recs, ack);
  await ob.write(() => ob.commit([{ t: "ack", b, head: Number(ack.head), at: new Date().toISOString(), r }]));
  ob.opts.onAck?.(b, ack);
  if (ob.opts.onRejected) for (const res of ack.results) if (res.status === "rejected") ob.opts.onRejected(ob.result(res.opId));
  await ob.write(() => ob.maybeCompact());
}

/**
 * Records why the flush stopped as the last error and throws it as a
 * SharevatError with err's code: "ws://…/capnweb refused the token:
 * unauthorized: …" for a refused redeem, "ws://…/capnweb refused the
 * append: permissionDenied: …" for an append refused for good.
 */
async function stopped(ctx: Ctx, sendErr: unknown, err: unknown): Promise<never> {
  const { ob, target, signal } = ctx;
  let msg = messageOf(err);
  const code = (codeOf(err) || "unavailable") as ErrorCode;
  const fail = target.lastFailure();
  if (fail && fail.err === err && !fail.dial && isPermanent(err)) msg = `${target.server} refused the token: ${msg}`;
  else if (isPermanent(err) && !fail && !(typeof err === "object" && err !== null && local.has(err))) msg = `${target.server} refused the append: ${msg}`;
  if (signal.aborted && !ob.closer.signal.aborted) msg = gaveUp(target, sendErr, signal.reason);
  if (msg && !ob.closer.signal.aborted) {
    await ob.write(() => ob.commit([{ t: "err", msg, at: new Date().toISOString() }])).catch(() => {});
  }
  if (err instanceof SharevatError && msg === err.message) throw err;
  throw new SharevatError(code, msg.startsWith(code + ": ") ? msg.slice(code.length + 2) : msg || messageOf(err));
}

/** Why a flush its signal ended had not delivered its batch, in one sentence without the token. */
function gaveUp(target: OutboxTarget, sendErr: unknown, reason: unknown): string {
  const timeout = reason instanceof DOMException && reason.name === "TimeoutError";
  const why = timeout ? "; gave up at the deadline" : "; gave up: the flush was canceled";
  const fail = target.lastFailure();
  if (fail?.dial) return `cannot reach ${target.server}: ${messageOf(fail.err)}${why}`;
  if (fail) return `${target.server} did not redeem the token: ${messageOf(fail.err)}${why}`;
  if (sendErr) return `sending to ${target.server} failed: ${messageOf(sendErr)}${why}`;
  return timeout ? `no answer from ${target.server} before the deadline` : "";
}

/** p, or a rejection when signal aborts first. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

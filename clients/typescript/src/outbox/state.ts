// The outbox's state, rebuilt at open by replaying the storage's frames in
// order, and changed only by applying a frame that has been made durable.
// Every backend stores the same frames (frames.ts), so every backend
// behaves the same.

import type { Frame, PendingRec, DoneRec, FailedRec, Snapshot } from "./frames.js";
import type { Ack, Limits, OpResult, StoredOp } from "./types.js";

/** Where an op is in the outbox. */
export type OpState = "pending" | "done" | "failed" | "unknown";

/** The outbox's state in memory. */
export class State {
  lastSeq = 0;
  lastOpId = "";
  share = "";
  server = "";
  head = 0;
  error: { msg: string; at: string } | undefined;
  limits: Limits | undefined;
  /** Pending ops in enqueue order; the front ones may be assigned to a batch. */
  readonly pending: PendingRec[] = [];
  private front = 0;
  /** Done and failed ops, oldest first (Map keeps insertion order). */
  readonly done = new Map<string, DoneRec>();
  readonly failed = new Map<string, FailedRec>();
  private readonly pendingIds = new Map<string, PendingRec>();

  constructor(private readonly keepDone: number) {}

  /** The pending ops, front first. */
  queue(): PendingRec[] {
    return this.pending.slice(this.front);
  }

  /** How many ops are pending. */
  pendingCount(): number {
    return this.pending.length - this.front;
  }

  /** The pending op with id, if any. */
  pendingOf(id: string): PendingRec | undefined {
    return this.pendingIds.get(id);
  }

  /** Where op id is. */
  stateOf(id: string): OpState {
    if (this.pendingIds.has(id)) return "pending";
    if (this.done.has(id)) return "done";
    if (this.failed.has(id)) return "failed";
    return "unknown";
  }

  /** The batch assigned at the front of the queue, if any. */
  assigned(): PendingRec[] {
    const out: PendingRec[] = [];
    for (let i = this.front; i < this.pending.length; i++) {
      const r = this.pending[i]!;
      if (!r.b || (out.length > 0 && r.b !== out[0]!.b)) break;
      out.push(r);
    }
    return out;
  }

  /** Applies one durable frame. */
  apply(f: Frame): void {
    switch (f.t) {
      case "hdr":
        return;
      case "enq":
        return this.enqueue(f.ops, f.at);
      case "asg":
        return this.assign(f.b, f.n);
      case "ack":
        return this.ack(f.b, f.head, f.r, f.at);
      case "err":
        this.error = f.msg === undefined ? undefined : { msg: f.msg, at: f.at };
        return;
      case "bind":
        this.share = f.share;
        this.server = f.server;
        return;
      case "lim":
        this.limits = f.limits;
        return;
      case "snap":
        return this.restore(f);
    }
  }

  private enqueue(ops: StoredOp[], at: string): void {
    for (const op of ops) {
      this.done.delete(op.id);
      this.failed.delete(op.id);
      const r: PendingRec = { seq: ++this.lastSeq, op, at };
      this.pending.push(r);
      this.pendingIds.set(op.id, r);
      this.lastOpId = op.id;
    }
  }

  private assign(b: string, n: number): void {
    const end = Math.min(this.front + n, this.pending.length);
    for (let i = this.front; i < end; i++) {
      const r = this.pending[i]!;
      r.b = b;
      r.bs = i - this.front;
    }
  }

  private ack(b: string, head: number, results: [string, number, string, string][], at: string): void {
    const recs = this.assigned();
    if (recs.length === 0 || recs[0]!.b !== b) return;
    recs.forEach((r, i) => {
      const [status, cursor, reason, detail] = results[i]!;
      this.pendingIds.delete(r.op.id);
      if (status === "rejected") {
        this.failed.set(r.op.id, { seq: r.seq, op: r.op, b, reason, detail, at });
      } else {
        this.done.set(r.op.id, { seq: r.seq, id: r.op.id, b, status, cursor, at });
      }
    });
    this.front += recs.length;
    if (this.front > 1024 && this.front * 2 > this.pending.length) {
      this.pending.splice(0, this.front);
      this.front = 0;
    }
    if (head > this.head) this.head = head;
    this.error = undefined;
    this.prune();
  }

  /** Drops the oldest done results beyond keepDone. */
  private prune(): void {
    let extra = this.done.size - this.keepDone;
    for (const id of this.done.keys()) {
      if (extra-- <= 0) break;
      this.done.delete(id);
    }
  }

  /** The state as one frame, for compaction. */
  snapshot(): Snapshot {
    return {
      t: "snap", seq: this.lastSeq, last: this.lastOpId, share: this.share, server: this.server, head: this.head,
      error: this.error, limits: this.limits, pending: this.queue(),
      done: [...this.done.values()], failed: [...this.failed.values()],
    };
  }

  private restore(s: Snapshot): void {
    this.lastSeq = s.seq;
    this.lastOpId = s.last;
    this.share = s.share;
    this.server = s.server;
    this.head = s.head;
    this.error = s.error;
    this.limits = s.limits;
    this.pending.length = 0;
    this.front = 0;
    this.pendingIds.clear();
    for (const r of s.pending) {
      this.pending.push(r);
      this.pendingIds.set(r.op.id, r);
    }
    this.done.clear();
    for (const r of s.done) this.done.set(r.id, r);
    this.failed.clear();
    for (const r of s.failed) this.failed.set(r.op.id, r);
  }

  /** The ack's results in the batch's order, matched by op id; throws when they do not answer exactly the batch. */
  static match(b: string, recs: PendingRec[], ack: Ack): [string, number, string, string][] {
    if (ack.results.length !== recs.length) {
      throw new Error(`ack for batch ${b} has ${ack.results.length} results for ${recs.length} ops`);
    }
    const byId = new Map<string, OpResult>(ack.results.map((r) => [r.opId, r]));
    return recs.map((r) => {
      const res = byId.get(r.op.id);
      if (!res) throw new Error(`ack for batch ${b} has no result for op ${r.op.id}`);
      return [res.status, Number(res.cursor), res.reason, res.detail];
    });
  }
}

// The durable outbox (docs/design.md §6, the Go client's Outbox): ops are
// on disk before enqueue resolves; flush sends them in enqueue order, in
// batches whose batch id and seqs are stored before the first send and
// reused on every resend until the batch is acked.

import { randomBytes } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import { SharevatError } from "./errors.js";
import { FileStorage } from "./file.js";
import { header, type Frame } from "./frames.js";
import { acquire, acquireSync, type Lock } from "./lock.js";
import { builtinSqlite, SqliteStorage } from "./sqlite.js";
import { State, type OpState } from "./state.js";
import type { Storage } from "./storage.js";
import { DEFAULT_LIMITS, type Ack, type Limits, type OutboxOp, type StoredOp } from "./types.js";
import { mustPass, toStored } from "./validate.js";
import { flush, type FlushOptions } from "./flush.js";
import type { OutboxTarget } from "./target.js";
import { Redeemer } from "../redeemer.js";
import { redeemerTarget } from "./redeemer.js";

/** Options of Outbox.open; every field has a default. */
export interface OutboxOptions {
  /** "file" (default: works everywhere, no native code), "sqlite" (bun:sqlite or node:sqlite, whichever the runtime has), or a Storage of your own. */
  storage?: "file" | "sqlite" | Storage;
  /** How long open waits for another holder of the file before it fails "in use"; default 1000 ms. */
  lockTimeoutMs?: number;
  /** How many done results are kept for result(); default 10,000. */
  keepDone?: number;
  /** Most ops per append; default 500. */
  maxBatchOps?: number;
  /** Most bytes per append, counted as the server does; default 4 MiB. */
  maxBatchBytes?: number;
  /** The limits enqueue checks ops against; default: the last the server reported to a flush, else the server defaults. */
  limits?: Limits;
  /** Bounds of the wait between failed sends on connections that redeemed; defaults 100 ms and 10 s. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Called after each ack is recorded. */
  onAck?: (batchId: string, ack: Ack) => void;
  /** Called each time a batch is about to be sent (again, with the same id, on a resend). */
  onSend?: (batchId: string, n: number) => void;
  /** Called once for each op the server rejected, after the rejection is recorded. */
  onRejected?: (result: OutboxResult) => void;
}

/** Where one op is and, once acked, what the server answered. */
export interface OutboxResult {
  opId: string;
  state: OpState;
  /** The batch it is (or was) sent in; "" before its first send. */
  batchId: string;
  /** applied or duplicate (done), rejected (failed). */
  status?: string;
  /** Where it is in the log (done): for a duplicate, the original's cursor. */
  cursor?: number;
  /** Why it was rejected (failed), and the server's detail. */
  reason?: string;
  detail?: string;
  ackedAt?: string;
}

/** The outbox's counts and last error. */
export interface OutboxStatus {
  path: string;
  storage: string;
  pending: number;
  done: number;
  failed: number;
  /** The share's head in the last ack. */
  head: number;
  /** The share the outbox is bound to ("" before its first flush) and the server last flushed to. */
  share: string;
  server: string;
  /** Why the last flush stopped short, until the next ack; never a token. */
  lastError?: { msg: string; at: string };
  /** The op id enqueued last ("" for none): where a producer resumes. */
  lastOpId: string;
}

const MiB = 1 << 20;

/** A durable outbox in one file. Open it with Outbox.open. */
export class Outbox {
  /** @internal */ readonly state: State;
  /** @internal */ readonly opts: Required<Pick<OutboxOptions, "maxBatchOps" | "maxBatchBytes" | "minBackoffMs" | "maxBackoffMs">> & OutboxOptions;
  private writes: Promise<unknown> = Promise.resolve();
  private flushing: Promise<unknown> = Promise.resolve();
  private compactedAt = 0;
  private closed = false;
  /** @internal */ readonly closer = new AbortController();

  private constructor(private readonly storage: Storage, private readonly lock: Lock, opts: OutboxOptions) {
    this.state = new State(opts.keepDone ?? 10_000);
    this.opts = { maxBatchOps: 500, maxBatchBytes: 4 * MiB, minBackoffMs: 100, maxBackoffMs: 10_000, ...opts };
  }

  /**
   * Opens (creating if needed, mode 0600) the outbox at path. Fails
   * "unavailable: … is in use" when another open Outbox holds it after
   * lockTimeoutMs, and "corrupt: the outbox file <path> is damaged: …" for
   * a damaged file, which it leaves as it is.
   */
  static async open(path: string, opts: OutboxOptions = {}): Promise<Outbox> {
    path = resolvePath(path);
    const storage = await storageFor(path, opts.storage);
    const lock = await acquire(path, opts.lockTimeoutMs ?? 1000);
    const ob = new Outbox(storage, lock, opts);
    try {
      for (const f of await storage.load(JSON.stringify(header()))) ob.state.apply(JSON.parse(f) as Frame);
      ob.compactedAt = storage.size();
      await ob.maybeCompact();
    } catch (e) {
      await storage.close().catch(() => {});
      await lock.release();
      throw e;
    }
    return ob;
  }

  /**
   * Outbox.open, synchronously, for a producer that must not yield before
   * its first op is durable (an event hook its host does not await). Only
   * the file storage (the default) opens synchronously; waiting for another
   * holder blocks the thread up to lockTimeoutMs.
   */
  static openSync(path: string, opts: OutboxOptions = {}): Outbox {
    path = resolvePath(path);
    const storage = opts.storage === undefined || opts.storage === "file" ? new FileStorage(path) : opts.storage;
    if (typeof storage === "string" || !storage.loadSync || !storage.appendSync) {
      throw new SharevatError("invalid", `the ${typeof storage === "string" ? storage : storage.kind} storage cannot open synchronously: use Outbox.open`);
    }
    const lock = acquireSync(path, opts.lockTimeoutMs ?? 1000);
    const ob = new Outbox(storage, lock, opts);
    try {
      for (const f of storage.loadSync(JSON.stringify(header()))) ob.state.apply(JSON.parse(f) as Frame);
      ob.compactedAt = storage.size();
    } catch (e) {
      void storage.close().catch(() => {});
      void lock.release();
      throw e;
    }
    return ob;
  }

  /** The file's path. */
  get path(): string {
    return this.storage.path;
  }

  /**
   * Stores ops durably (fsync'd before it resolves), after every op already
   * pending, all or none, and returns their op ids. An op without an id
   * gets one ("op-" and 32 hex digits). Refused, storing nothing: a body
   * that is not JSON, an op the server's limits refuse (its words:
   * "invalid" or "tooLarge"), an id pending with other content
   * ("conflict"); "unavailable" after close. An id already pending with
   * the same content is kept once; a done or failed id is enqueued again.
   */
  async enqueue(ops: OutboxOp[]): Promise<string[]> {
    this.mustBeOpen();
    const lim = this.opts.limits ?? this.state.limits ?? DEFAULT_LIMITS;
    const stored = ops.map((op) => toStored(op, op?.opId || "op-" + randomBytes(16).toString("hex")));
    stored.forEach((op) => mustPass(op, lim));
    return this.write(async () => {
      const fresh = this.fresh(stored);
      if (fresh.length > 0) await this.commit([{ t: "enq", at: new Date().toISOString(), ops: fresh }]);
      return stored.map((op) => op.id);
    });
  }

  /**
   * enqueue, synchronously: the ops are written and fsync'd when it
   * returns, after every op enqueued before (by either call), with the
   * same validation, errors and de-duplication. For a producer whose host
   * does not await it (an event hook). Only the file storage supports it;
   * others fail "invalid".
   */
  enqueueSync(ops: OutboxOp[]): string[] {
    this.mustBeOpen();
    if (!this.storage.appendSync) throw new SharevatError("invalid", `the ${this.storage.kind} storage has no synchronous enqueue: use enqueue`);
    const lim = this.opts.limits ?? this.state.limits ?? DEFAULT_LIMITS;
    const stored = ops.map((op) => toStored(op, op?.opId || "op-" + randomBytes(16).toString("hex")));
    stored.forEach((op) => mustPass(op, lim));
    const fresh = this.fresh(stored);
    if (fresh.length > 0) this.commitSync([{ t: "enq", at: new Date().toISOString(), ops: fresh }]);
    return stored.map((op) => op.id);
  }

  /** The ops of stored not already pending; "conflict" for an id pending (or repeated) with other content. */
  private fresh(stored: StoredOp[]): StoredOp[] {
    const fresh = [];
    const seen = new Set<string>();
    for (const op of stored) {
      const pending = this.state.pendingOf(op.id);
      const same = pending ? JSON.stringify(pending.op) === JSON.stringify(op) : seen.has(op.id);
      if ((pending || seen.has(op.id)) && !same) {
        throw new SharevatError("conflict", `op id ${JSON.stringify(op.id)} is already pending with different content`);
      }
      if (!pending && !seen.has(op.id)) fresh.push(op);
      seen.add(op.id);
    }
    return fresh;
  }

  /**
   * Sends every pending op through target (the package's Redeemer, or any
   * OutboxTarget), one batch at a time, and resolves once nothing is
   * pending. Flushes run one at a time. See flush.ts for how it retries
   * and when it stops.
   */
  flush(target: Redeemer | OutboxTarget, opts: FlushOptions = {}): Promise<void> {
    this.mustBeOpen();
    const t = target instanceof Redeemer ? redeemerTarget(target) : target;
    const run = this.flushing.then(() => flush(this, t, opts));
    this.flushing = run.catch(() => {});
    return run;
  }

  /** The outbox's counts and last error. */
  status(): OutboxStatus {
    const s = this.state;
    return {
      path: this.path, storage: this.storage.kind, pending: s.pendingCount(), done: s.done.size, failed: s.failed.size,
      head: s.head, share: s.share, server: s.server, lastError: s.error, lastOpId: s.lastOpId,
    };
  }

  /** Where op id is, and its result once acked ("unknown": never enqueued, or done and pruned). */
  result(id: string): OutboxResult {
    const s = this.state;
    const p = s.pendingOf(id);
    if (p) return { opId: id, state: "pending", batchId: p.b ?? "" };
    const d = s.done.get(id);
    if (d) return { opId: id, state: "done", batchId: d.b, status: d.status, cursor: d.cursor, ackedAt: d.at };
    const f = s.failed.get(id);
    if (f) return { opId: id, state: "failed", batchId: f.b, status: "rejected", reason: f.reason, detail: f.detail, ackedAt: f.at };
    return { opId: id, state: "unknown", batchId: "" };
  }

  /** The rejected ops, oldest first. */
  failed(): OutboxResult[] {
    return [...this.state.failed.keys()].map((id) => this.result(id));
  }

  /** Stops a running flush, waits for it, closes the file and releases the lock. Later calls fail "unavailable". */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closer.abort(new SharevatError("unavailable", `the outbox ${this.path} is closed`));
    await this.flushing;
    await this.writes.catch(() => {});
    await this.storage.close();
    await this.lock.release();
  }

  /**
   * @internal Makes frames durable, then applies them; serialised with
   * every other write. With a storage that appends synchronously, both
   * happen before it yields, so an enqueueSync never falls in between.
   */
  async commit(frames: Frame[]): Promise<void> {
    if (this.storage.appendSync) return this.commitSync(frames);
    await this.storage.append(frames.map((f) => JSON.stringify(f)));
    for (const f of frames) this.state.apply(f);
  }

  /** commit, synchronously. */
  private commitSync(frames: Frame[]): void {
    this.storage.appendSync!(frames.map((f) => JSON.stringify(f)));
    for (const f of frames) this.state.apply(f);
  }

  /** @internal Runs fn after every earlier write. */
  write<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(() => {
      this.mustBeOpen();
      return fn();
    });
    this.writes = run.catch(() => {});
    return run;
  }

  /** @internal Rewrites the file as one snapshot once it is at least 1 MiB and twice its last compacted size. */
  async maybeCompact(): Promise<void> {
    const size = this.storage.size();
    if (size < MiB || size < 2 * this.compactedAt) return;
    await this.storage.replace([JSON.stringify(header()), JSON.stringify(this.state.snapshot())]);
    this.compactedAt = this.storage.size();
  }

  private mustBeOpen(): void {
    if (this.closed) throw new SharevatError("unavailable", `the outbox ${this.path} is closed`);
  }
}

async function storageFor(path: string, s: OutboxOptions["storage"]): Promise<Storage> {
  if (s === undefined || s === "file") return new FileStorage(path);
  if (s !== "sqlite") return s;
  const kind = await builtinSqlite();
  if (!kind) throw new SharevatError("invalid", "this runtime has no built-in SQLite (bun:sqlite or node:sqlite): use the file storage");
  return new SqliteStorage(kind, path);
}

// Appender, Reader and Subscription: appending to and reading one share's
// log, as the Go client's.
import type { RpcStub } from "capnweb";
import type { Conn } from "./conn.js";
import { SharevatError, toSharevatError } from "./errors.js";
import { release } from "./share.js";
import type * as w from "./wire.js";

/** A {@link w.Batch} whose epoch may be left out: the Share's access epoch is sent then. */
export type AppendBatch = Omit<w.Batch, "epoch"> & { epoch?: w.UInt64Input };

/** Appends batches to one share (the Go client's Appender). */
export class Appender {
  /** The raw capnweb stub. */
  readonly stub: RpcStub<w.Appender>;
  readonly #conn: Conn;
  readonly #epoch: () => w.Epoch;

  /** @internal */
  constructor(conn: Conn, stub: RpcStub<w.Appender>, epoch: () => w.Epoch) {
    this.#conn = conn;
    this.stub = stub;
    this.#epoch = epoch;
  }

  /**
   * Sends one batch and resolves with its ack once the vat made it
   * durable; ops are applied in order, in one transaction. A rejection
   * with "unavailable" leaves the outcome unknown: send the same ops again
   * (same op ids) and the ack tells which were applied before (duplicate,
   * at their first cursors) and which now.
   */
  append(batch: AppendBatch): Promise<w.Ack> {
    const b: w.Batch = { ...batch, epoch: batch.epoch ?? this.#epoch() };
    return this.#conn.call(() => this.stub.append(b));
  }

  /** Mints a token for exactly this capability's rights. */
  save(ttlSeconds = 0, label = ""): Promise<w.Minted> {
    return this.#conn.call(() => this.stub.save(ttlSeconds, label));
  }

  /** Drops this capability. */
  release(): void {
    release(this.stub);
  }
}

/** How a {@link Subscription} ended. */
export type SubscriptionOutcome =
  /** close() was called (or the Tail's signal aborted). */
  | { kind: "closed" }
  /** The vat ended it (e.g. "revoked"), or the connection was lost ("unavailable"). */
  | { kind: "ended"; error: SharevatError }
  /** The handler threw this. */
  | { kind: "handler"; error: unknown };

/** A live subscription (the Go client's Subscription). */
export class Subscription {
  /** Resolves once the subscription ended, and how; no handler call follows. */
  readonly done: Promise<SubscriptionOutcome>;
  #stub: RpcStub<w.Subscription> | undefined;
  #cursor: w.Cursor;
  #end: SubscriptionOutcome | undefined;
  #resolve!: (e: SubscriptionOutcome) => void;
  #running: Promise<void> = Promise.resolve();

  /** @internal */
  constructor(from: w.Cursor) {
    this.#cursor = from;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** The cursor of the last op the handler accepted (from, before any). */
  get cursor(): w.Cursor {
    return this.#cursor;
  }

  /** Whether it has ended. */
  get isDone(): boolean {
    return this.#end !== undefined;
  }

  /** Ends the subscription; `done` resolves once no handler call is running. Idempotent. */
  close(): void {
    this.#finish({ kind: "closed" });
  }

  /** @internal */
  attach(stub: RpcStub<w.Subscription>): void {
    this.#stub = stub;
    if (this.#end) release(stub);
  }

  /** @internal The sink's push: runs handler on ops, one batch at a time. */
  push(ops: w.LogEntry[], handler: (ops: w.LogEntry[]) => void | Promise<void>): Promise<void> {
    const run = this.#running.then(async () => {
      if (this.#end) return;
      try {
        await handler(ops);
      } catch (err) {
        this.#finish({ kind: "handler", error: err });
        throw new SharevatError("internal", "the client's handler failed");
      }
      const last = ops[ops.length - 1];
      if (last) this.#cursor = last.cursor;
    });
    this.#running = run.catch(() => undefined);
    return run;
  }

  /** @internal The end: by the vat, the connection or this side. */
  finishWith(err: SharevatError): void {
    this.#finish({ kind: "ended", error: err });
  }

  #finish(end: SubscriptionOutcome): void {
    if (this.#end) return;
    this.#end = end;
    if (this.#stub) release(this.#stub);
    void this.#running.then(() => this.#resolve(end));
  }
}

/** Reads one share (the Go client's Reader). */
export class Reader {
  /** The raw capnweb stub. */
  readonly stub: RpcStub<w.Reader>;
  readonly #conn: Conn;

  /** @internal */
  constructor(conn: Conn, stub: RpcStub<w.Reader>) {
    this.#conn = conn;
    this.stub = stub;
  }

  /**
   * The ops after fromCursor, in order, and the head: at most limit (0, or
   * over 1,000: 1,000), stopping before 8 MiB. Read again from the last
   * cursor received until ops is empty, or use {@link Reader.readAll}.
   */
  read(fromCursor: w.UInt64Input = 0, limit = 0): Promise<{ ops: w.LogEntry[]; head: w.Cursor }> {
    return this.#conn.call(() => this.stub.read(fromCursor, limit));
  }

  /** Hands every page after fromCursor up to the head to fn; resolves with the last cursor read. */
  async readAll(fromCursor: w.Cursor, fn: (ops: w.LogEntry[]) => void | Promise<void>): Promise<w.Cursor> {
    let at = fromCursor;
    for (;;) {
      const { ops, head } = await this.read(at, 0);
      if (ops.length === 0) return at;
      await fn(ops);
      at = ops[ops.length - 1]!.cursor;
      if (at >= head) return at;
    }
  }

  /** The latest entity of every (kind, key) and the cursor it reflects. */
  snapshot(): Promise<{ entities: w.Entity[]; cursor: w.Cursor }> {
    return this.#conn.call(() => this.stub.snapshot());
  }

  /**
   * One page of the state in order from after (the previous page's next;
   * omitted: from the start), within maxEntities and maxBytes (0: the
   * vat's, 1,000 and 8 MiB, which also cap larger ones). Call again with
   * after = next until done, or use {@link Reader.statePages}.
   */
  snapshotPage(order: w.StateOrder = "byKey", after?: w.StateCursorInput, maxEntities = 0, maxBytes = 0): Promise<w.StatePage> {
    return this.#conn.call(() => this.stub.snapshotPage(order, after, maxEntities, maxBytes));
  }

  /**
   * The pages of the state in order, one call each, to the end: memory is
   * one page whatever the share's size. "byChange" yields the newest
   * changes first; an entity changed during the walk moves above its start
   * (follow the log from the first page's head to see it).
   */
  async *statePages(order: w.StateOrder = "byKey", maxEntities = 0, maxBytes = 0): AsyncGenerator<w.StatePage> {
    let after: w.StateCursorInput | undefined;
    for (;;) {
      const page = await this.snapshotPage(order, after, maxEntities, maxBytes);
      yield page;
      if (page.done || page.entities.length === 0) return;
      after = page.next;
    }
  }

  /** Mints a token for exactly this capability's rights. */
  save(ttlSeconds = 0, label = ""): Promise<w.Minted> {
    return this.#conn.call(() => this.stub.save(ttlSeconds, label));
  }

  /**
   * Pushes every op after fromCursor to handler, whole batches as the vat
   * sends them: the backlog, then live ops, in cursor order, with flow
   * control (the vat waits for each handler call). Ending and resuming are
   * the caller's: see {@link tail} for a follower that survives
   * reconnects.
   */
  async subscribe(fromCursor: w.Cursor, handler: (ops: w.LogEntry[]) => void | Promise<void>): Promise<Subscription> {
    const sub = new Subscription(fromCursor);
    const sink = (ops: w.LogEntry[], end?: w.SubscriptionEnd): Promise<void> => {
      if (end) {
        sub.finishWith(new SharevatError(codeOf(end.code), end.detail));
        return Promise.resolve();
      }
      return sub.push(ops, handler);
    };
    void this.#conn.ended.then((err) => sub.finishWith(err));
    try {
      const stub = await this.#conn.call(() => this.stub.subscribe(fromCursor, sink));
      sub.attach(stub as never);
    } catch (err) {
      sub.close();
      throw toSharevatError(err);
    }
    return sub;
  }

  /** Drops this capability (a subscription made from it lives on). */
  release(): void {
    release(this.stub);
  }
}

/** A subscription end's code as an error code ("unavailable" for one not known). */
function codeOf(code: string): w.ErrorCode {
  const e = toSharevatError({ code, message: "" });
  return e.code === "internal" && code !== "internal" ? "unavailable" : e.code;
}

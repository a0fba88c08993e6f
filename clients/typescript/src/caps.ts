// The wire types of the capabilities: every interface of
// schema/sharevat.capnp as seen over Cap'n Web, with the schema's method
// names and positional parameters (see wire.ts for the structs and the
// mapping rules).

import type { RpcTarget } from "capnweb";
import type {
  Access, Ack, Batch, Created, Cursor, Entity, Fenced, GrantInfo, Id, Limits, ListFilter, LogEntry, MetaInput, Minted,
  Restored, ScopeInput, Settings, SettingsInput, ShareInfo, ShareStatus, StateCursorInput, StateOrder, StatePage, Token,
  UInt64Input,
} from "./wire.js";

// --- Interfaces ---------------------------------------------------------

/** The main interface of /capnweb. It has no authority of its own. */
export interface Vault extends RpcTarget {
  /**
   * Redeems a share token. Every failure of the token answers
   * "unauthorized: invalid or expired token", which never quotes the token;
   * a server whose store cannot be reached answers "unavailable" (retry).
   */
  restore(token: Token): Promise<Restored>;
  /** Redeems the server's admin token. Failures as for restore. */
  restoreAdmin(token: Token): Promise<Admin>;
  /** On a server started with --open, an Admin that may create shares; otherwise permissionDenied. */
  openAdmin(): Promise<Admin>;
  /** Does nothing and answers at once. */
  ping(): Promise<void>;
  /** The append limits this server enforces. */
  limits(): Promise<Limits>;
}

/** What the server's admin token (or --open) may do. */
export interface Admin extends RpcTarget {
  /** Creates a share; its owner token holds every right. */
  createShare(meta: MetaInput): Promise<Created>;
  /** Newest update first; a null filter lists every live share, the first page. */
  list(filter: ListFilter | null): Promise<{ shares: ShareInfo[]; nextPageToken: string }>;
  /** Bumps the share's epoch (every earlier token dies) and mints a new owner token. */
  resetOwner(shareId: Id): Promise<Fenced>;
  /** The status of every live share. */
  statuses(): Promise<ShareStatus[]>;
}

/** One share, narrowed to a grant's scope. */
export interface Share extends RpcTarget {
  info(): Promise<{ info: ShareInfo; access: Access }>;
  /** Needs admin. */
  update(meta: MetaInput): Promise<ShareInfo>;
  /** Needs append. */
  appender(): Promise<Appender>;
  /** Needs read. */
  reader(): Promise<Reader>;
  /**
   * Needs delegate; scope must be a subset of the caller's; the expiry is
   * never later than the caller's (ttlSeconds 0: the caller's expiry).
   */
  grant(scope: ScopeInput, ttlSeconds: UInt64Input, label: string): Promise<Minted>;
  /** Revokes a grant and its subtree. Needs admin, or the grant must be in the caller's own subtree. */
  revoke(grantId: Id): Promise<void>;
  /**
   * Needs admin. Fences every grant of the share, the caller's own
   * included, and answers a new owner token at the new epoch.
   */
  bumpEpoch(): Promise<Fenced>;
  /** The delegation tree. */
  grants(): Promise<GrantInfo[]>;
  /** Needs delegate: a token for this capability's own scope. */
  save(ttlSeconds: UInt64Input, label: string): Promise<Minted>;
  /** Needs read. A new share holding this share's ops 1..atCursor; meta's set fields override the parent's. */
  fork(atCursor: UInt64Input, meta: MetaInput): Promise<Created>;
  /** Needs read. The live shares forked from this one, oldest first. */
  children(): Promise<ShareInfo[]>;
  /** Needs admin. Deletes the share: every grant of it dies at once. */
  delete(): Promise<void>;
  /** Needs read. */
  settings(): Promise<Settings>;
  /** Needs admin. Replaces the settings and answers them as stored. */
  configure(settings: SettingsInput): Promise<Settings>;
  /** Needs admin. Drops the ops before beforeCursor; answers the earliest readable cursor. */
  compact(beforeCursor: UInt64Input): Promise<Cursor>;
}

/** Appends to one share. */
export interface Appender extends RpcTarget {
  /** Acknowledged only once the batch is durable. */
  append(batch: Batch): Promise<Ack>;
  save(ttlSeconds: UInt64Input, label: string): Promise<Minted>;
}

/** Reads one share. */
export interface Reader extends RpcTarget {
  /**
   * The ops with cursor > fromCursor, in order, and the head: at most limit
   * (0, or over 1,000: 1,000), stopping before 8 MiB. Call again from the
   * last cursor received until ops is empty.
   */
  read(fromCursor: UInt64Input, limit: number): Promise<{ ops: LogEntry[]; head: Cursor }>;
  /** The latest entity of every (kind, key) and the cursor it reflects. */
  snapshot(): Promise<{ entities: Entity[]; cursor: Cursor }>;
  /**
   * One page of the state in order from after (the previous page's next;
   * omitted: from the start): at most maxEntities (0, or over 1,000:
   * 1,000) and maxBytes (0, or over 8 MiB: 8 MiB), at least one entity
   * when any is left. Call again with after = next until done.
   */
  snapshotPage(order?: StateOrder, after?: StateCursorInput, maxEntities?: number, maxBytes?: number): Promise<StatePage>;
  /**
   * Pushes every op after fromCursor to sink: the backlog, then live ops,
   * in cursor order, no gap, no repeat. The vat awaits each push (flow
   * control in bytes). Dispose the Subscription to end it.
   */
  subscribe(fromCursor: UInt64Input, sink: OpSink | OpSinkFunction): Promise<Subscription>;
  save(ttlSeconds: UInt64Input, label: string): Promise<Minted>;
}

/**
 * A subscription's sink, implemented by the client: an `RpcTarget`
 * subclass or a plain object of functions.
 */
export interface OpSink {
  /** Some ops, in cursor order. Answer promptly; throwing ends the subscription. */
  push(ops: LogEntry[]): void | Promise<void>;
  /**
   * The subscription ended and no push follows: code "revoked", detail
   * "capability revoked", when the grant behind the Reader died.
   */
  end?(code: string, detail: string): void | Promise<void>;
}

/** How a subscription ended, as an {@link OpSinkFunction} is told. */
export interface SubscriptionEnd {
  code: string;
  detail: string;
}

/**
 * A sink as one function: pushes call it with the ops; the end calls it
 * with `([], {code, detail})`.
 */
export type OpSinkFunction = (ops: LogEntry[], end?: SubscriptionEnd) => void | Promise<void>;

/** A live subscription. Disposing the last stub of it ends it. */
export interface Subscription extends RpcTarget {
  /**
   * The last cursor sent to the sink (fromCursor before the first push).
   * After end "revoked" it fails with "revoked".
   */
  cursor(): Promise<Cursor>;
}

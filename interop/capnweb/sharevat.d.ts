// GENERATED from clients/typescript/src/wire.ts and caps.ts by
// `npm run gen:interop` in clients/typescript: do not edit here. The
// package @sharevat/client (clients/typescript) is the TypeScript client;
// this file is its wire types alone, for raw capnweb sessions:
//
//   import { newWebSocketRpcSession } from "capnweb";
//   import type { Vault } from "./sharevat";
//   const vault = newWebSocketRpcSession<Vault>("ws://127.0.0.1:7420/capnweb");
//   const { share, access } = await vault.restore(token);
//

import type { RpcTarget } from "capnweb";

// --- Scalars -----------------------------------------------------------

/**
 * A UInt64 or Int64 as the vat answers it: a number, or a `bigint` when it
 * exceeds 2^53-1. Cursors, heads and epochs count ops and bumps, so in
 * practice they are always numbers; they are typed {@link Cursor} and
 * {@link Epoch} (numbers) for that reason.
 */
export type UInt64 = number | bigint;

/** A UInt64 or Int64 as the vat accepts it: a non-negative whole number or a bigint. */
export type UInt64Input = number | bigint;

/**
 * A position in a share's log, 1-based: the first op is at cursor 1; 0 is
 * "before the first op". A share's head is the cursor of its last op.
 */
export type Cursor = number;

/** A share's epoch: bumped by `Share.bumpEpoch` (and `Admin.resetOwner`), fencing every earlier grant. */
export type Epoch = number;

/** A time the vat set, or `null` when unset (the schema's 0). */
export type Time = Date | null;

/**
 * A sturdy ref: exactly 73 ASCII bytes, `svt1_<grant id>_<secret>`. Secret:
 * never log it. Send it as is (no whitespace; `admin.token` ends with a
 * newline: strip it).
 */
export type Token = string;

/** A grant or share id: 24 characters of lowercase base32. Not secret. */
export type Id = string;

/** A JSON value: what op bodies are over Cap'n Web. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

// --- Enums -------------------------------------------------------------

/** A share's status. In `Share.update`, "unset" (or a missing status) leaves it unchanged. */
export type Status = "unset" | "idle" | "busy" | "error";

/** What the vat does with secret-shaped strings in appended ops. */
export type Privacy =
  /** The default: each match is replaced by `[REDACTED:<rule>]` before anything is written. */
  | "redact"
  /** An op with a match is rejected with reason "secret". */
  | "reject"
  /** No scan. */
  | "off";

/** What became of one op of an append. */
export type OpStatus = "applied" | "duplicate" | "rejected";

/** Why an op was rejected ("none" unless its status is "rejected"). */
export type Reason =
  | "none"
  /** Its op id is already in the log with different content; `cursor` names the original. */
  | "idReused"
  /** The batch's epoch is not the share's. */
  | "staleEpoch"
  /** An op id in `dependsOn` is not in the log. */
  | "missingDependency"
  /** `expected.cursor` was not the head just before the op. */
  | "conflict"
  /** Malformed: an empty op id, an unknown kind, a body that is not JSON, … */
  | "invalid"
  /** Over one of the server's {@link Limits}. */
  | "tooLarge"
  /** It carries a secret-shaped string and the share's privacy policy is "reject". */
  | "secret";

// --- Errors ------------------------------------------------------------

/**
 * The code of a failed call: the text before the first ": " of its message.
 * New codes may be added: treat an unknown one like "internal".
 */
export type ErrorCode =
  /** A token could not be redeemed: every failure of the token answers "unauthorized: invalid or expired token". */
  | "unauthorized"
  /** The capability is valid but lacks the right. */
  | "permissionDenied"
  /** The grant behind a live capability was revoked, expired or fenced: restore a token again. */
  | "revoked"
  /** The request is malformed or out of range. */
  | "invalid"
  /** The request conflicts with the current state. */
  | "conflict"
  /** The named thing does not exist (or is not visible). */
  | "notFound"
  /** A limit was exceeded (answer size, quotas). */
  | "tooLarge"
  /**
   * Cannot answer now; retry later. A redeem the server could not check
   * (its store is down) answers "unavailable: cannot check the token now
   * (the server's store is unavailable); retry later": the token may be valid.
   */
  | "unavailable"
  /** A bug on the server; details are only in its log. */
  | "internal"
  /** Stored data failed its integrity check; retrying does not help. */
  | "corrupt"
  /** A read or subscription asked for ops a compaction dropped; the message names the earliest readable cursor. */
  | "compacted";

/**
 * What a failed call rejects with: an `Error` whose message is exactly
 * `<code>: <message>` (e.g. "revoked: capability revoked or expired") and
 * whose `code` is the code. (A call of an unknown method rejects with a
 * plain `TypeError`, as capnweb does.)
 */
export type WireError = Error & { code: ErrorCode };

// --- Structs -----------------------------------------------------------

/** A set of rights. The share's creator holds all four. */
export interface Scope {
  read: boolean;
  append: boolean;
  delegate: boolean;
  admin: boolean;
}

/** A {@link Scope} as sent: a missing right is false. */
export type ScopeInput = Partial<Scope>;

/** Session metadata, as the vat answers it. */
export interface Meta {
  title: string;
  projectId: string;
  directory: string;
  version: string;
  status: Status;
  createdAt: Time;
  updatedAt: Time;
  /** When the status last changed (null: never set). */
  statusAt: Time;
}

/**
 * Metadata as sent (`Admin.createShare`, `Share.update`, `Share.fork`): a
 * text field that is missing or `null` is left unchanged, `""` clears it; a
 * missing status (or "unset") leaves it unchanged. The times are the
 * server's and ignored on input.
 */
export type MetaInput = {
  title?: string | null;
  projectId?: string | null;
  directory?: string | null;
  version?: string | null;
  status?: Status;
};

/** A share, as `restore`, `info`, `list` and friends describe it. */
export interface ShareInfo {
  id: Id;
  meta: Meta;
  epoch: Epoch;
  head: Cursor;
  /** The share this one was forked from ("" for none). */
  parentId: Id;
  /** The parent's cursor it was forked at. */
  forkCursor: Cursor;
  /** In `Admin.list`: a deleted share (its id is never reused). */
  deleted: boolean;
  /** The earliest cursor still readable (1 unless compacted). */
  earliest: Cursor;
}

/** `Admin.list`'s filter: every set field must match; missing or "" matches any. */
export type ListFilter = {
  projectId?: string;
  directory?: string;
  /** "unset" (or missing): any. */
  status?: Status;
  parentId?: Id;
  /** At most this many (0: the server's page size, 100; at most 1000). */
  limit?: number;
  /** From the previous page's `nextPageToken`; "" for the first. */
  pageToken?: string;
  /** Include deleted shares. */
  withDeleted?: boolean;
};

/** One share's status, as `Admin.statuses` lists it. */
export interface ShareStatus {
  id: Id;
  status: Status;
  statusAt: Time;
  title: string;
}

/**
 * A share's settings. With retainOps or retainSeconds set, the vat compacts
 * older ops in the background; with both set, an op goes once both allow it.
 */
export interface Settings {
  privacy: Privacy;
  /** Keep at least the last N ops readable; 0: no limit by count. */
  retainOps: UInt64;
  /** Keep at least the ops of the last so many seconds; 0: no limit by age. */
  retainSeconds: UInt64;
}

/** {@link Settings} as sent to `Share.configure`: a missing field is the default ("redact", 0, 0). */
export type SettingsInput = {
  privacy?: Privacy;
  retainOps?: UInt64Input;
  retainSeconds?: UInt64Input;
};

/** What the caller's own capability may do. */
export interface Access {
  grantId: Id;
  scope: Scope;
  /** The epoch to send in each {@link Batch}. */
  epoch: Epoch;
  expiresAt: Time;
}

/**
 * One op to append. Its `opId` is the idempotency key, unique within the
 * share forever: sending the same op again answers "duplicate" at its first
 * cursor, so retries are safe.
 */
export type Op = {
  opId: string;
  /** Position in its batch, 0-based by convention; stored as sent. */
  seq?: number;
  /** Op ids that must already be in the log. */
  dependsOn?: string[];
  /** `{cursor: n}`: the head expected just before this op applies; `{none: null}` or missing: no precondition. */
  expected?: { cursor: UInt64Input } | { none: null };
  /** session, message, part, session_diff, model, event. */
  kind: string;
  /** The entity id for state kinds; "" (or missing) for event. */
  key?: string;
  /** The op's JSON value (or a Uint8Array holding JSON text); missing for a delete. */
  body?: Json | Uint8Array;
  /** A tombstone for (kind, key). */
  delete?: boolean;
};

/** One `Appender.append`: committed in one transaction, in ops order. */
export type Batch = {
  /** Client-chosen; stored with each op, not checked for uniqueness. */
  batchId?: string;
  /** The epoch the client believes current ({@link Access.epoch}). */
  epoch: UInt64Input;
  ops: Op[];
};

/** What became of one op. */
export interface OpResult {
  opId: string;
  status: OpStatus;
  /** For applied and duplicate (and idReused: the original's). */
  cursor: Cursor;
  /** For rejected; "none" otherwise. */
  reason: Reason;
  /** A human-readable detail for rejected. */
  detail: string;
}

/** The answer to an append, given once the batch is durable. */
export interface Ack {
  /** The share's head after the batch. */
  head: Cursor;
  /** One per op, in the batch's order. */
  results: OpResult[];
  applied: number;
  duplicates: number;
  rejected: number;
  /** Secret-shaped strings replaced by `[REDACTED:<rule>]` in this batch. */
  redacted: number;
}

/** One op of the log, as read or pushed. */
export interface LogEntry {
  cursor: Cursor;
  opId: string;
  batchId: string;
  seq: number;
  kind: string;
  key: string;
  /** The stored JSON, decoded in order; `undefined` for an empty body (a delete). */
  body: Json | undefined;
  delete: boolean;
  at: Time;
}

/** The latest state of one (kind, key). */
export interface Entity {
  kind: string;
  key: string;
  body: Json | undefined;
  /** The op that last set it. */
  cursor: Cursor;
  at: Time;
}

/**
 * The order of a walk of the state by `Reader.snapshotPage`: "byKey",
 * (kind, key) ascending, or "byChange", newest change first (by the
 * entity's cursor, descending).
 */
export type StateOrder = "byKey" | "byChange";

/**
 * Where a page of the state ended (a page's `next`, passed back as
 * `after`): byKey continues after (kind, key), byChange below cursor (0:
 * from the newest).
 */
export interface StateCursor {
  kind: string;
  key: string;
  cursor: Cursor;
}

/** A StateCursor as the vat accepts it. */
export type StateCursorInput = { kind?: string; key?: string; cursor?: UInt64Input };

/** One page of the state (`Reader.snapshotPage`). */
export interface StatePage {
  entities: Entity[];
  /** Pass as `after` for the next page. */
  next: StateCursor;
  /** Nothing is left after this page. */
  done: boolean;
  /** The share's head this page reflects. */
  head: Cursor;
}

/** One node of the delegation tree. Never carries a secret. */
export interface GrantInfo {
  id: Id;
  /** "" for the owner grant. */
  parent: Id;
  scope: Scope;
  label: string;
  epoch: Epoch;
  /** The minting peer's address. */
  createdBy: string;
  createdAt: Time;
  lastUsedAt: Time;
  expiresAt: Time;
  revoked: boolean;
  revokedAt: Time;
}

/** A freshly minted sturdy ref. Its token is shown once and never again. */
export interface Minted {
  token: Token;
  grantId: Id;
  scope: Scope;
  expiresAt: Time;
}

/** The append limits a server enforces: an op or batch over one is rejected "tooLarge". */
export interface Limits {
  /** Largest op body, in bytes. */
  maxBodyBytes: number;
  /** Most ops in one append. */
  maxOpsPerBatch: number;
  /** Largest append: the sum of its ops' sizes. */
  maxBatchBytes: number;
  /** Longest op id (and batch id), in bytes. */
  maxOpIdLen: number;
  /** Longest key, in bytes. */
  maxKeyLen: number;
  /** Most dependencies of one op. */
  maxDependsOn: number;
}

// --- Results with several fields ----------------------------------------

/** `Vault.restore`'s answer. */
export interface Restored {
  /** The share, narrowed to the grant's scope. */
  share: Share;
  access: Access;
  info: ShareInfo;
}

/** `Admin.createShare`'s and `Share.fork`'s answer. */
export interface Created {
  share: Share;
  /** The new share's owner token (every right). */
  owner: Minted;
  info: ShareInfo;
}

/** `Share.bumpEpoch`'s and `Admin.resetOwner`'s answer. */
export interface Fenced {
  /** A new owner token at the new epoch. */
  owner: Minted;
  epoch: Epoch;
}

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

/** A failed call's error, under the name this declaration always had. */
export type SharevatError = WireError;

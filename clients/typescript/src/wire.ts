// The wire types: the sharevat vat's interface as seen over Cap'n Web (the
// `capnweb` npm package) at /capnweb, the TypeScript face of
// schema/sharevat.capnp under the mapping rules of docs/capnweb.md. Every
// interface, struct, enum and error code of the schema is here, with the
// schema's names (the capabilities are in caps.ts); schema_test.go checks
// them against the schema, so a schema change these types miss fails CI.
// interop/capnweb/sharevat.d.ts is generated from the two files
// (`npm run gen:interop`).
//
// These are the types of raw capnweb stubs (`RpcStub<Vault>`); the package's
// classes (Conn, Share, Appender, Reader, …) wrap them in the Go client's
// shape. Mapping, in short (docs/capnweb.md, "The interface"):
//   - a method whose schema result has one field answers that field; one
//     with several answers an object with the schema's field names;
//   - enums are strings; times (Int64 Unix nanoseconds) are `Date`s, or
//     `null` when unset; UInt64/Int64 are numbers, or bigints above 2^53-1;
//   - op bodies are JSON values, not bytes;
//   - a failed call rejects with an Error whose message is "<code>: <message>"
//     and whose `code` is the code ({@link WireError}).
//
// The structs a client sends (Op, Batch, MetaInput, ListFilter,
// SettingsInput) are type aliases rather than interfaces so that capnweb's
// types let any field be a promise, e.g. `epoch: restored.access.epoch`
// pipelined on a restore not yet answered.

import type { Share } from "./caps.js";

export type * from "./caps.js";

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

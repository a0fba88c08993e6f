# sharevat wire contract (docs/design.md §3, §5). This file is a public wire
# contract: never renumber or retype a field or method, never reuse an
# ordinal; add new fields and methods at the end only.
#
# Implementing a client in another language: schema/README.md (how to
# compile this file without Go, the transport, limits).
#
# Conventions:
#   - Times are Int64 Unix nanoseconds (UTC); 0 means "unset"/"never".
#   - Cursors are UInt64, 1-based: the first op of a share's log is at
#     cursor 1; cursor 0 is "before the first op". A share's head is the
#     cursor of its last op (0 for an empty log).
#   - Transport: WebSocket to the path /rpc, one unpacked Cap'n Proto
#     message per binary frame; Vault is the bootstrap capability
#     (docs/design.md §7).
#
# Errors. Every failure of a call that reaches a sharevat object is a
# Cap'n Proto exception of type "failed" whose reason is exactly
#   <code>: <message>
# e.g. "permissionDenied: needs append; this capability has read". The
# code is the text before the first ": " and is one of the list below;
# codes are never renamed or removed, new ones may be added at the end, so
# treat an unknown code like "internal". The message is for people: it
# may change, and it never holds a secret. (Client libraries may prefix
# the reason, e.g. C++ with "remote exception: ", Go with the method.)
#   unauthorized      a token could not be redeemed: malformed, unknown,
#                     wrong secret, revoked, expired, stale epoch, deleted
#                     share all answer "unauthorized: invalid or expired
#                     token"
#   permissionDenied  the capability is valid but lacks the right
#   revoked           the grant behind a live capability was revoked,
#                     expired or fenced by an epoch bump ("revoked:
#                     capability revoked or expired"); restore a token again
#   invalid           the request is malformed or out of range
#   conflict          the request conflicts with the current state
#   notFound          the named thing does not exist (or is not visible)
#   tooLarge          a limit was exceeded (answer size, quotas)
#   unavailable       cannot answer now; retry later (disk full, closing,
#                     "unavailable: call cancelled")
#   internal          a bug on the server; details are only in its log
#   corrupt           stored data failed its integrity check; retrying
#                     does not help
#   compacted         a read or subscription asked for ops a compaction
#                     dropped; the message names the earliest cursor
#                     still readable: take the snapshot, follow from there
# Not domain errors: methods this server does not implement yet (see
# docs/design.md §13) and methods it does not know answer an exception of
# type "unimplemented". A rejected op of an append is not an error either:
# it is a Reason in the Ack. Transport limits close the WebSocket with a
# close code instead (docs/design.md §7).
#
# Tokens (sturdy refs). A token is a Text of exactly 73 ASCII bytes:
#   offset  length  content
#   0       5       "svt1_" (format and version)
#   5       24      grant id: 15 random bytes, RFC 4648 base32 with the
#                   lowercase alphabet a-z2-7, no padding
#   29      1       "_"
#   30      43      secret: 32 random bytes, base64url (RFC 4648 §5)
#                   without padding; the last character's 2 unused bits
#                   are zero
# Pattern: svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}. Send exactly those 73
# bytes: no whitespace or newline (admin.token ends with a newline; strip
# it). Clients treat the token as opaque and secret: never log it. Grant
# ids (Access.grantId, Minted.grantId, GrantInfo.id) and share ids have
# the grant-id form and are not secret. Golden vectors:
# testdata/tokens/golden.json.
@0xeef594388b6114fc;

using Go = import "/go.capnp";
$Go.package("schema");
$Go.import("github.com/sharevat/sharevat/schema");

# The /go.capnp annotations only steer the Go code generator. The file
# ships with go-capnp (capnproto.org/go/capnp/v3, std/go.capnp), not with
# this repository: see schema/README.md for the -I path to give capnp.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("sharevat");

# --- Structs --------------------------------------------------------------

struct Scope {
  # A set of rights. The share's creator holds all four.
  read @0 :Bool;
  append @1 :Bool;
  delegate @2 :Bool;
  admin @3 :Bool;
}

enum Status {
  unset @0;   # in Share.update: leave unchanged
  idle @1;
  busy @2;
  error @3;
}

struct Meta {
  # Session metadata. In Share.update, a text field that is null (not set)
  # is left unchanged; set it to "" to clear it. createdAt/updatedAt are
  # set by the server and ignored on input.
  title @0 :Text;
  projectId @1 :Text;
  directory @2 :Text;
  version @3 :Text;
  status @4 :Status;
  createdAt @5 :Int64;
  updatedAt @6 :Int64;
  statusAt @7 :Int64;        # when status last changed (server-set; 0: never set)
}

struct ShareInfo {
  id @0 :Text;
  meta @1 :Meta;
  epoch @2 :UInt64;
  head @3 :UInt64;
  parentId @4 :Text;         # the share this one was forked from ("" for none)
  forkCursor @5 :UInt64;     # the parent's cursor it was forked at
  deleted @6 :Bool;          # in Admin.list: a deleted share (its id is never reused)
  earliest @7 :UInt64;       # the earliest cursor still readable (1 unless compacted)
}

struct ListFilter {
  # Admin.list: every set field must match; unset or "" matches any.
  projectId @0 :Text;
  directory @1 :Text;
  status @2 :Status;         # unset: any
  parentId @3 :Text;
  limit @4 :UInt32;          # at most this many (0: the server's page size, 100; at most 1000)
  pageToken @5 :Text;        # from the previous page's nextPageToken; "" for the first
  withDeleted @6 :Bool;      # include deleted shares
}

struct ShareStatus {
  id @0 :Text;
  status @1 :Status;
  statusAt @2 :Int64;
  title @3 :Text;
}

enum Privacy {
  redact @0;   # the default: a secret-shaped match is replaced by [REDACTED:<rule>] before anything is written
  reject @1;   # an op with a match is rejected with reason secret
  off @2;      # no scan
}

struct Settings {
  # A share's settings (Share.settings, Share.configure).
  privacy @0 :Privacy;
  retainOps @1 :UInt64;      # keep at least the last N ops readable; 0: no limit by count
  retainSeconds @2 :Int64;   # keep at least the ops of the last D seconds; 0: no limit by age
  # With either set, the vat compacts (Share.compact) older ops in the
  # background; with both set, an op goes once both allow it.
}

struct Access {
  # What the caller's own capability may do.
  grantId @0 :Text;
  scope @1 :Scope;
  epoch @2 :UInt64;
  expiresAt @3 :Int64;
}

struct Op {
  opId @0 :Text;             # idempotency key, unique within the share forever
  seq @1 :UInt32;
  # Position in its batch, 0-based by convention (0, 1, 2, … in batch
  # order; the Go client and the interop clients send that). The server
  # neither checks nor renumbers it: it stores the value sent and returns
  # it in LogEntry.seq. It is not part of the op's content, so a retry may
  # regroup ops, and a duplicate keeps the seq stored first.
  dependsOn @2 :List(Text);  # op ids that must already be in the log
  expected :union {
    none @3 :Void;           # no head precondition
    cursor @4 :UInt64;       # the head expected just before this op applies
  }
  kind @5 :Text;             # session, message, part, session_diff, model, event
  key @6 :Text;              # entity id for state kinds; empty for event
  body @7 :Data;             # JSON
  delete @8 :Bool;           # tombstone for (kind, key)
}

struct Batch {
  # One Appender.append: committed in one transaction, in ops order.
  batchId @0 :Text;          # client-chosen; stored with each op, not checked for uniqueness
  epoch @1 :UInt64;          # the epoch the client believes current (Access.epoch)
  ops @2 :List(Op);
}

enum OpStatus {
  applied @0;
  duplicate @1;
  rejected @2;
}

enum Reason {
  none @0;
  idReused @1;
  staleEpoch @2;
  missingDependency @3;
  conflict @4;
  invalid @5;
  tooLarge @6;
  secret @7;        # the op carries a secret-shaped string and the share's privacy policy is reject
}

struct OpResult {
  opId @0 :Text;
  status @1 :OpStatus;
  cursor @2 :UInt64;         # for applied and duplicate (and idReused: the original)
  reason @3 :Reason;         # for rejected
  detail @4 :Text;           # human-readable detail for rejected
}

struct Ack {
  head @0 :UInt64;           # the share's head after the batch
  results @1 :List(OpResult);
  applied @2 :UInt32;
  duplicates @3 :UInt32;
  rejected @4 :UInt32;
  redacted @5 :UInt32;       # secret-shaped strings replaced by [REDACTED:<rule>] in this batch
}

struct LogEntry {
  cursor @0 :UInt64;
  opId @1 :Text;
  batchId @2 :Text;
  seq @3 :UInt32;
  kind @4 :Text;
  key @5 :Text;
  body @6 :Data;
  delete @7 :Bool;
  at @8 :Int64;
}

struct Entity {
  kind @0 :Text;
  key @1 :Text;
  body @2 :Data;
  cursor @3 :UInt64;         # the op that last set it
  at @4 :Int64;
}

struct GrantInfo {
  # One node of the delegation tree. Never carries a secret.
  id @0 :Text;
  parent @1 :Text;           # empty for the owner grant
  scope @2 :Scope;
  label @3 :Text;
  epoch @4 :UInt64;
  createdBy @5 :Text;        # the minting peer's address
  createdAt @6 :Int64;
  lastUsedAt @7 :Int64;
  expiresAt @8 :Int64;
  revoked @9 :Bool;
  revokedAt @10 :Int64;
}

struct Minted {
  # A freshly minted sturdy ref. The token is shown once and never again.
  token @0 :Text;
  grantId @1 :Text;
  scope @2 :Scope;
  expiresAt @3 :Int64;
}

# --- Interfaces -----------------------------------------------------------

interface Vault {
  # The bootstrap capability. It has no authority of its own.

  restore @0 (token :Text) -> (share :Share, access :Access, info :ShareInfo);
  # Redeems a share token (73 bytes, see "Tokens" above). The Share is
  # narrowed to the grant's scope. Every failure answers "unauthorized:
  # invalid or expired token", which never quotes the token.

  restoreAdmin @1 (token :Text) -> (admin :Admin);
  # Redeems the server's admin token. Failures as for restore.

  openAdmin @2 () -> (admin :Admin);
  # On a server started with --open, an Admin that may create shares
  # (but not list others'); otherwise permissionDenied.

  ping @3 () -> ();
  # Does nothing and answers at once: a liveness probe, and the floor
  # that `sharevat bench` measures RPC calls against.

  limits @4 () -> (limits :Limits);
  # The append limits this server enforces (its serve flags), so that a
  # client can refuse, with the server's own words, an op it could never
  # deliver (one bigger than maxBatchBytes does not fit in a message the
  # server reads) instead of sending it. An older server answers
  # unimplemented: send as before.
}

struct Limits {
  # The append limits of a server; an op or batch over one is rejected
  # tooLarge, per op, with a message naming the limit.
  maxBodyBytes @0 :UInt32;    # largest op body, in bytes
  maxOpsPerBatch @1 :UInt32;  # most ops in one append
  maxBatchBytes @2 :UInt32;   # largest append: the sum of its ops' sizes
  maxOpIdLen @3 :UInt32;      # longest op id (and batch id), in bytes
  maxKeyLen @4 :UInt32;       # longest key, in bytes
  maxDependsOn @5 :UInt32;    # most dependencies of one op
}

interface Admin {
  createShare @0 (meta :Meta) -> (share :Share, owner :Minted, info :ShareInfo);
  # Creates a share; its owner token holds every right.

  list @1 (filter :ListFilter) -> (shares :List(ShareInfo), nextPageToken :Text);
  # Newest update first (then id); a null filter lists every live share,
  # the first page. nextPageToken is "" on the last page.

  resetOwner @2 (shareId :Text) -> (owner :Minted, epoch :UInt64);
  # Bumps the share's epoch (every earlier token of it dies) and mints a
  # new owner token: the way back when an owner token is lost, or the
  # reply to Share.bumpEpoch was.

  statuses @3 () -> (statuses :List(ShareStatus));
  # The status of every live share (opencode's /session/status).
}

interface Share {
  info @0 () -> (info :ShareInfo, access :Access);
  update @1 (meta :Meta) -> (info :ShareInfo);                 # needs admin
  appender @2 () -> (appender :Appender);                      # needs append
  reader @3 () -> (reader :Reader);                            # needs read
  grant @4 (scope :Scope, ttlSeconds :Int64, label :Text) -> (minted :Minted);
  # Needs delegate; scope must be a subset of the caller's; the expiry is
  # never later than the caller's (ttlSeconds 0: the caller's expiry).
  revoke @5 (grantId :Text) -> ();
  # Revokes a grant and its subtree. Needs admin, or the grant must be in
  # the caller's own subtree.
  bumpEpoch @6 () -> (owner :Minted, epoch :UInt64);
  # Needs admin. Increments the share's epoch, which fences every grant
  # of the share, the caller's own included: from the moment it answers,
  # every live capability of the share (this Share too, and its Appenders,
  # Readers and Subscriptions) answers "revoked: …", subscriptions end
  # with code "revoked", every earlier token answers "unauthorized" at
  # restore, and batches at the old epoch are rejected staleEpoch. The
  # answer carries a new owner token at the new epoch: restore it
  # (Vault.restore) to go on. Not idempotent: if the answer is lost, only
  # Admin.resetOwner (the server's admin token) gets a new owner token.
  grants @7 () -> (grants :List(GrantInfo));                   # the delegation tree
  save @8 (ttlSeconds :Int64, label :Text) -> (minted :Minted); # needs delegate
  fork @9 (atCursor :UInt64, meta :Meta) -> (share :Share, owner :Minted, info :ShareInfo);
  # Needs read. A new share whose log is this share's ops 1..atCursor
  # (same op ids, batch ids, kinds, keys, bodies, order; cursors
  # 1..atCursor), its state this share's state at atCursor; it records
  # this share as its parent. meta's set fields override the parent's
  # (title, project, directory, version). The caller gets the new
  # share's owner token. atCursor past the head is invalid; before the
  # earliest readable cursor (after a compaction) is compacted.
  children @10 () -> (shares :List(ShareInfo));                # needs read
  # The live shares forked from this one, oldest first.
  delete @11 () -> ();                                         # needs admin
  # Deletes the share: every grant of it dies at once (live capabilities
  # answer "revoked", subscriptions end with "revoked"), its log, state
  # and op-id index are removed; its id is never reused, its audit
  # records stay, its children live on.
  settings @12 () -> (settings :Settings);                     # needs read
  configure @13 (settings :Settings) -> (settings :Settings);  # needs admin
  # Replaces the share's settings and answers them as stored.
  compact @14 (beforeCursor :UInt64) -> (earliest :UInt64);    # needs admin
  # Drops the ops before beforeCursor (bodies and entries), keeping the
  # materialized state exact and the op-id index whole: a late retry of a
  # compacted op is still answered duplicate at its cursor. Reads and
  # subscriptions from before the answer's earliest cursor then fail with
  # "compacted: …" naming it; take the snapshot and follow from there.
}

interface Appender {
  append @0 (batch :Batch) -> (ack :Ack);
  # Acknowledged only once the batch is durable.
  save @1 (ttlSeconds :Int64, label :Text) -> (minted :Minted);
}

interface Reader {
  read @0 (fromCursor :UInt64, limit :UInt32) -> (ops :List(LogEntry), head :UInt64);
  # The ops with cursor > fromCursor, in cursor order, and the share's
  # head. At most limit ops; limit 0, or more than the server's cap of
  # 1,000 ops, means 1,000. An answer also stops before its ops exceed
  # 8 MiB (8388608 bytes, counting each op's opId, batchId, kind, key and
  # body lengths plus 64), but always holds at least one op when there is
  # one. So an answer may hold fewer ops than asked while more exist: to
  # read everything, call again from the last cursor received until ops
  # is empty (or the last cursor equals head). fromCursor at or past the
  # head answers no ops.
  snapshot @1 () -> (entities :List(Entity), cursor :UInt64);
  # The latest entity of every (kind, key), deletes applied, and the
  # cursor it reflects. Over 8 MiB it answers "tooLarge: …" (having read
  # no more than 8 MiB of it): page through it with snapshotPage instead.
  subscribe @2 (fromCursor :UInt64, sink :OpSink) -> (subscription :Subscription);
  # Pushes every op after fromCursor to sink: the backlog, then live ops,
  # in cursor order, no gap, no repeat, in pushes of at most 256 ops and
  # 64 KiB (at least one op), with at most 512 KiB of pushes unanswered
  # (serve --subscription-window): answer push promptly. fromCursor past
  # the head is "invalid";
  # over a subscription quota, "tooLarge". How a subscription ends: see
  # OpSink.end and Subscription.
  save @3 (ttlSeconds :Int64, label :Text) -> (minted :Minted);
  snapshotPage @4 (order :StateOrder, after :StateCursor, maxEntities :UInt32, maxBytes :UInt32)
      -> (entities :List(Entity), next :StateCursor, done :Bool, head :UInt64);
  # One page of the state snapshot answers: in order (byKey: (kind, key)
  # ascending; byChange: newest change first, by the entity's cursor
  # descending), from after (the previous page's next; null or empty
  # from the beginning). At most maxEntities entities (0, or more than
  # 1,000, means 1,000) and maxBytes bytes (0, or more than 8 MiB, means
  # 8 MiB; each entity counts its kind, key and body lengths plus 48),
  # but at least one entity when any is left. done: nothing is left after
  # this page; otherwise call again with after = next. head is the share's
  # head the page reflects. Pages are each consistent, not with each
  # other: byKey meets every key that exists throughout a walk exactly
  # once, with the version current when its page was read; byChange meets
  # every entity not changed during the walk exactly once, and one
  # changed during it moves above the walk's start: follow the log from
  # the first page's head (subscribe) to see it.
}

enum StateOrder {
  byKey @0;
  byChange @1;
}

struct StateCursor {
  # Where a page of the state ended: byKey continues after (kind, key),
  # byChange below cursor (0: from the newest).
  kind @0 :Text;
  key @1 :Text;
  cursor @2 :UInt64;
}

interface OpSink {
  # Implemented by the client of a subscription.
  push @0 (ops :List(LogEntry)) -> stream;
  # Throwing from push ends the subscription, without end.
  end @1 (code :Text, detail :Text) -> ();
  # The subscription ended; no push follows. The server calls end only
  # when the grant behind the Reader dies (revoked, expired, or fenced by
  # Share.bumpEpoch): code "revoked", detail "capability revoked". It
  # arrives after every push already sent; the server waits at most 5 s
  # for its answer, then releases its reference to this sink. Code "" is
  # reserved for a normal end; this server never sends it. A subscription
  # also ends, without end, when the client releases its Subscription,
  # when a push fails (push threw, or the connection broke), and when the
  # server shuts down (the WebSocket closes with 1001).
}

interface Subscription {
  # Releasing the last reference ends the subscription: the server stops
  # pushing and releases the sink.
  cursor @0 () -> (cursor :UInt64);
  # The last cursor handed to the sink (fromCursor before the first push):
  # its push is sent, or waiting for the flow window; not necessarily
  # answered yet. Once the grant has died (after
  # end "revoked") it fails with "revoked: capability revoked or expired";
  # after a silent end it keeps answering the last cursor sent.
}

# sharevat wire contract (docs/design.md §3, §5). This file is a public wire
# contract: never renumber or retype a field or method, never reuse an
# ordinal; add new fields and methods at the end only.
#
# Conventions:
#   - Times are Int64 Unix nanoseconds (UTC); 0 means "unset"/"never".
#   - Cursors are UInt64, 1-based; cursor 0 is "before the first op".
#   - Errors travel as Cap'n Proto exceptions whose reason is
#     "<code>: <message>", with a code from docs/design.md §9 (unauthorized,
#     permissionDenied, revoked, invalid, conflict, notFound, tooLarge,
#     unavailable, internal, corrupt).
@0xeef594388b6114fc;

using Go = import "/go.capnp";
$Go.package("schema");
$Go.import("sharevat/schema");

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
}

struct ShareInfo {
  id @0 :Text;
  meta @1 :Meta;
  epoch @2 :UInt64;
  head @3 :UInt64;
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
  seq @1 :UInt32;            # position in its batch
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
  batchId @0 :Text;
  epoch @1 :UInt64;          # the epoch the client believes current
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
  # Redeems a share token. The Share is narrowed to the grant's scope.
  # Every failure answers "unauthorized: invalid or expired token".

  restoreAdmin @1 (token :Text) -> (admin :Admin);
  # Redeems the server's admin token. Failures as for restore.

  openAdmin @2 () -> (admin :Admin);
  # On a server started with --open, an Admin that may create shares
  # (but not list others'); otherwise permissionDenied.

  ping @3 () -> ();
  # Does nothing and answers at once: a liveness probe, and the floor
  # that `sharevat bench` measures RPC calls against.
}

interface Admin {
  createShare @0 (meta :Meta) -> (share :Share, owner :Minted, info :ShareInfo);
  # Creates a share; its owner token holds every right.

  list @1 () -> (shares :List(ShareInfo));

  resetOwner @2 (shareId :Text) -> (owner :Minted, epoch :UInt64);
  # Bumps the share's epoch (every earlier token of it dies) and mints a
  # new owner token: the way back when an owner token is lost, or the
  # reply to Share.bumpEpoch was.
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
  bumpEpoch @6 () -> (owner :Minted, epoch :UInt64);           # needs admin
  grants @7 () -> (grants :List(GrantInfo));                   # the delegation tree
  save @8 (ttlSeconds :Int64, label :Text) -> (minted :Minted); # needs delegate
  fork @9 (atCursor :UInt64, meta :Meta) -> (share :Share, owner :Minted, info :ShareInfo);
  children @10 () -> (shares :List(ShareInfo));
  delete @11 () -> ();                                         # needs admin
}

interface Appender {
  append @0 (batch :Batch) -> (ack :Ack);
  # Acknowledged only once the batch is durable.
  save @1 (ttlSeconds :Int64, label :Text) -> (minted :Minted);
}

interface Reader {
  read @0 (fromCursor :UInt64, limit :UInt32) -> (ops :List(LogEntry), head :UInt64);
  # Ops with cursor > fromCursor, at most limit (capped by the server).
  snapshot @1 () -> (entities :List(Entity), cursor :UInt64);
  subscribe @2 (fromCursor :UInt64, sink :OpSink) -> (subscription :Subscription);
  # Pushes every op after fromCursor to sink: backlog, then live ops.
  save @3 (ttlSeconds :Int64, label :Text) -> (minted :Minted);
}

interface OpSink {
  # Implemented by the client of a subscription.
  push @0 (ops :List(LogEntry)) -> stream;
  end @1 (code :Text, detail :Text) -> ();
  # The subscription ended: code "" for a normal end, else an error code
  # (revoked when the grant dies).
}

interface Subscription {
  # Releasing the last reference ends the subscription.
  cursor @0 () -> (cursor :UInt64);   # the last cursor pushed to the sink
}

// The types the outbox shares with the wire (interop/capnweb/sharevat.d.ts,
// docs/capnweb.md): what it stores, what it sends, what it is answered.

/** A JSON value: what op bodies are. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The append limits a server reports (`Vault.limits`). */
export interface Limits {
  maxBodyBytes: number;
  maxOpsPerBatch: number;
  maxBatchBytes: number;
  maxOpIdLen: number;
  maxKeyLen: number;
  maxDependsOn: number;
}

/** The limits a server uses unless configured otherwise (sharevat.DefaultLimits). */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxBodyBytes: 1 << 20,
  maxOpsPerBatch: 1000,
  maxBatchBytes: 8 << 20,
  maxOpIdLen: 128,
  maxKeyLen: 512,
  maxDependsOn: 64,
});

/** One op handed to `Outbox.enqueue`. Without `opId` the outbox assigns one ("op-" and 32 hex digits). */
export interface OutboxOp {
  opId?: string;
  /** session, message, part, session_diff, model, event. */
  kind: string;
  /** The entity id for state kinds; missing or "" for event. */
  key?: string;
  /** A JSON value, or a Uint8Array holding JSON text; missing for a delete. */
  body?: Json | Uint8Array;
  /** A tombstone for (kind, key). */
  delete?: boolean;
  /** Op ids that must already be in the log. */
  dependsOn?: string[];
  /** The head expected just before this op applies. */
  expectedCursor?: number;
}

/** An op as the outbox stores it: the body is its compact JSON text. */
export interface StoredOp {
  id: string;
  kind: string;
  key?: string;
  body?: string;
  del?: boolean;
  deps?: string[];
  expect?: number;
}

/** What became of one op of an append. */
export type OpStatus = "applied" | "duplicate" | "rejected";

/** One op's result in an {@link Ack}. */
export interface OpResult {
  opId: string;
  status: OpStatus;
  cursor: number;
  reason: string;
  detail: string;
}

/** The answer to an append. */
export interface Ack {
  head: number;
  results: OpResult[];
}

/** One op as sent in a batch (the wire's `Op`). */
export interface WireOp {
  opId: string;
  seq: number;
  kind: string;
  key?: string;
  body?: Uint8Array;
  delete?: boolean;
  dependsOn?: string[];
  expected?: { cursor: number };
}

/** One append as sent (the wire's `Batch`). */
export interface WireBatch {
  batchId: string;
  epoch: number;
  ops: WireOp[];
}

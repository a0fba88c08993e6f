// The frames every storage backend keeps, in order: the outbox's history,
// or after a compaction a header and one snapshot. Their field names are
// the on-disk format: never rename them, and keep "t" first (the file
// backend recognises a frame by its opening `{"t":"`, scan.ts).

import type { Limits, StoredOp } from "./types.js";

/** The format version in the header frame. */
export const FORMAT = 1;

/** A pending op: its enqueue seq, the op, when it was enqueued, and once assigned its batch id and seq in it. */
export interface PendingRec {
  seq: number;
  op: StoredOp;
  at: string;
  b?: string;
  bs?: number;
}

/** A done op (applied or duplicate): its result, without the body. */
export interface DoneRec {
  seq: number;
  id: string;
  b: string;
  status: string;
  cursor: number;
  at: string;
}

/** A failed op (rejected): the op, kept, with the reason and the server's detail. */
export interface FailedRec {
  seq: number;
  op: StoredOp;
  b: string;
  reason: string;
  detail: string;
  at: string;
}

/** The whole state in one frame (compaction). */
export interface Snapshot {
  t: "snap";
  seq: number;
  last: string;
  share: string;
  server: string;
  head: number;
  error: { msg: string; at: string } | undefined;
  limits: Limits | undefined;
  pending: PendingRec[];
  done: DoneRec[];
  failed: FailedRec[];
}

/** One frame. */
export type Frame =
  | { t: "hdr"; format: number; created: string }
  | { t: "enq"; at: string; ops: StoredOp[] }
  | { t: "asg"; b: string; n: number }
  | { t: "ack"; b: string; head: number; at: string; r: [string, number, string, string][] }
  | { t: "err"; msg?: string; at: string }
  | { t: "bind"; share: string; server: string }
  | { t: "lim"; limits: Limits }
  | Snapshot;

/** The header frame a new outbox starts with. */
export function header(): Frame {
  return { t: "hdr", format: FORMAT, created: new Date().toISOString() };
}

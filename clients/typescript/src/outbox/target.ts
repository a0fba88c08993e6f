// What the outbox sends through: a target that redeems a token on demand
// and reconnects after a failure (the Go client's Redeemer, narrowed to
// what Flush needs). capnwebTarget is one over the official capnweb
// package at /capnweb; the package's Redeemer can be adapted to it too.

import type { Ack, Limits, WireBatch } from "./types.js";

/** One redeemed share on one live connection. */
export interface OutboxSession {
  /** The share the token redeemed to. */
  readonly shareId: string;
  /** The share's epoch, sent in each batch. */
  readonly epoch: number;
  /** One append; rejects with the server's error (with `.code`) or a transport error. */
  append(batch: WireBatch): Promise<Ack>;
  /** The server's append limits (`Vault.limits`). */
  limits(): Promise<Limits>;
}

/** Redeems on demand; after `fail`, the next `session` reconnects and redeems again (paced by its own backoff). */
export interface OutboxTarget {
  /** The server's URL as shown in errors (no password, never a token). */
  readonly server: string;
  /** The current session, dialing and redeeming when there is none; rejects with the failure. */
  session(signal?: AbortSignal): Promise<OutboxSession>;
  /** Drops session after err, so the next `session` reconnects. */
  fail(session: OutboxSession, err: unknown): void;
  /** The last failure of a dial or redeem since the last success: `dial` tells a connection that failed from a refused token. */
  lastFailure(): { dial: boolean; err: unknown } | undefined;
  /** Releases every connection. */
  close(): void;
}

/** Waits ms, or rejects when signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** min·2^n capped at max, jittered in its upper half. */
export function backoff(minMs: number, maxMs: number, n: number): number {
  const d = Math.min(maxMs, minMs * 2 ** Math.min(n, 30));
  return d / 2 + Math.random() * (d / 2);
}

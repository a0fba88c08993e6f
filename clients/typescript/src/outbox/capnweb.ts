// An OutboxTarget over the official capnweb package: a WebSocket session
// to /capnweb per connection, the token restored on it, reconnecting with
// backoff after a failure.

import { newWebSocketRpcSession } from "capnweb";
import { SharevatError, isPermanent } from "./errors.js";
import { backoff, sleep, type OutboxSession, type OutboxTarget } from "./target.js";
import type { Ack, Limits, WireBatch } from "./types.js";

/** Options of capnwebTarget. */
export interface CapnwebTargetOptions {
  /** Bounds of the wait between failed dials or redeems; defaults 100 ms and 10 s. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

interface Live extends OutboxSession {
  dispose(): void;
}

/**
 * Returns a target that redeems token at url (ws://host:port/capnweb).
 * `session` retries a failed dial or a redeem the server could not check
 * (unavailable) with backoff, until it succeeds, the token is refused
 * (a permanent error, thrown at once) or the signal aborts. The token never
 * appears in an error.
 */
export function capnwebTarget(url: string, token: string, opts: CapnwebTargetOptions = {}): OutboxTarget {
  const minMs = opts.minBackoffMs ?? 100;
  const maxMs = opts.maxBackoffMs ?? 10_000;
  const server = shownURL(url);
  let live: Live | undefined;
  let failures = 0;
  let last: { dial: boolean; err: unknown } | undefined;

  async function dial(): Promise<Live> {
    await ensureWebSocket();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const vault: any = newWebSocketRpcSession(url);
    let redeemed = false;
    try {
      const restored = vault.restore(token);
      const { share, info, access } = await restored;
      redeemed = true;
      const appender = share.appender();
      return {
        shareId: String(info.id),
        epoch: Number(access.epoch),
        append: (b: WireBatch) => appender.append(b) as Promise<Ack>,
        limits: () => vault.limits() as Promise<Limits>,
        dispose: () => {
          try {
            vault[Symbol.dispose]();
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      try {
        vault[Symbol.dispose]();
      } catch {
        /* already gone */
      }
      last = { dial: !redeemed && !isPermanent(e), err: e };
      throw e;
    }
  }

  return {
    server,
    async session(signal?: AbortSignal): Promise<OutboxSession> {
      for (;;) {
        if (live) return live;
        if (failures > 0) await sleep(backoff(minMs, maxMs, failures - 1), signal);
        try {
          live = await dial();
          failures = 0;
          last = undefined;
          return live;
        } catch (e) {
          failures++;
          if (isPermanent(e) || signal?.aborted || isBug(e)) throw e;
        }
      }
    },
    fail(s: OutboxSession) {
      if (s !== live) return;
      live.dispose();
      live = undefined;
      failures++;
    },
    lastFailure: () => last,
    close() {
      live?.dispose();
      live = undefined;
    },
  };
}

/**
 * Makes sure there is a global WebSocket, which capnweb's transport needs:
 * the runtime's own, or on Node 20 (which has none) the ws package's.
 */
async function ensureWebSocket(): Promise<void> {
  if (typeof globalThis.WebSocket === "function") return;
  const { WebSocket: WS } = await import("ws");
  globalThis.WebSocket ??= WS as unknown as typeof WebSocket;
}

/** Whether e is a programming error (no retry fixes it), not a failed connection. */
function isBug(e: unknown): boolean {
  return e instanceof ReferenceError || e instanceof SyntaxError || (e instanceof TypeError && !/fetch|network|socket/i.test(e.message));
}

/** raw without any password in it. */
export function shownURL(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = "xxxxx";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

export { SharevatError };

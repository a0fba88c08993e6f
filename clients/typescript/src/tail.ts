// tail and tailIterator: follow a share from a cursor across lost
// connections and vat restarts, each op exactly once (the Go client's Tail).
import { backoff, jittered, sleep } from "./backoff.js";
import { isPermanent, SharevatError } from "./errors.js";
import type { Subscription, SubscriptionOutcome } from "./log.js";
import type { Redeemer } from "./redeemer.js";
import type { Cursor, LogEntry } from "./wire.js";

/** Options of {@link tail} and {@link tailIterator}. */
export interface TailOptions {
  /** Ends the tail: it resolves once the handler is no longer running. */
  signal?: AbortSignal;
}

// The pause between subscriptions that deliver nothing (a vat that accepts
// and then drops them must not be hammered): none after the first, then
// doubling from pauseMin up to pauseMax, with jitter; a subscription that
// delivered, or lived `stable` ms, resets it.
const pauseMin = 100;
const pauseMax = 5_000;
const stable = 30_000;

/**
 * Follows the share redeemer redeems to, from cursor from: hands every op
 * after from to handler, one at a time, in cursor order, each exactly
 * once — the backlog, then live ops — across lost connections and vat
 * restarts (it reports a transport failure to the redeemer, which
 * connects again with backoff, and subscribes again from the last cursor
 * handler accepted). The handler may be async: the next op waits for it.
 *
 * Resolves when opts.signal aborts or the redeemer is closed; rejects
 * with the handler's error, or a permanent error ("revoked",
 * "unauthorized", …) as soon as it sees one. Once it settled, handler is
 * not running and will not be called again.
 */
export async function tail(
  redeemer: Redeemer,
  from: Cursor,
  handler: (entry: LogEntry) => void | Promise<void>,
  opts: TailOptions = {},
): Promise<void> {
  let last = from;
  const deliver = async (ops: LogEntry[]) => {
    for (const e of ops) {
      if (e.cursor <= last) continue;
      await handler(e);
      last = e.cursor;
    }
  };
  const stop = anySignal(opts.signal, redeemer.closedSignal);
  let pauses = 0;
  try {
    while (!stop.signal.aborted) {
      const start = Date.now();
      const before = last;
      const end = await follow(redeemer, () => last, deliver, stop.signal);
      if (end.kind === "handler") throw end.error;
      if (stop.signal.aborted) return;
      if (end.kind === "ended" && isPermanent(end.error)) throw end.error;
      if (last > before || Date.now() - start > stable) pauses = 0;
      if (pauses++ > 0) await sleep(jittered(backoff(pauseMin, pauseMax, pauses - 2)), stop.signal);
    }
  } finally {
    stop.dispose();
  }
}

/**
 * One subscription on redeemer's Share, from cursor(), until it ends or
 * signal aborts. A failure that is not the handler's is reported to the
 * redeemer.
 */
async function follow(
  redeemer: Redeemer,
  cursor: () => Cursor,
  deliver: (ops: LogEntry[]) => Promise<void>,
  signal: AbortSignal,
): Promise<SubscriptionOutcome> {
  let sh;
  try {
    sh = await redeemer.share(signal);
  } catch (err) {
    return { kind: "ended", error: err as SharevatError };
  }
  let sub: Subscription | undefined;
  try {
    const rd = await sh.reader();
    try {
      sub = await rd.subscribe(cursor(), deliver);
    } finally {
      rd.release(); // the subscription does not need it
    }
  } catch (err) {
    redeemer.fail(sh, err);
    return { kind: "ended", error: err as SharevatError };
  }
  const onAbort = () => sub.close();
  signal.addEventListener("abort", onAbort, { once: true });
  // The backlog may be handed over, and the tail ended, before subscribe
  // answered: a listener added to an aborted signal never runs.
  if (signal.aborted) onAbort();
  const end = await sub.done;
  signal.removeEventListener("abort", onAbort);
  if (end.kind === "ended") redeemer.fail(sh, end.error);
  return end;
}

/** An AbortController that aborts when any of signals does; dispose it to stop listening. */
function anySignal(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal; dispose(): void } {
  const c = new AbortController();
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = () => c.abort();
  for (const s of live) {
    if (s.aborted) c.abort();
    else s.addEventListener("abort", onAbort, { once: true });
  }
  return { signal: c.signal, dispose: () => live.forEach((s) => s.removeEventListener("abort", onAbort)) };
}

/** An async iterator of a share's ops, from {@link tailIterator}. */
export interface TailIterator extends AsyncIterableIterator<LogEntry> {
  /** The cursor of the last op the iterator handed out (from, before any). */
  readonly cursor: Cursor;
}

/**
 * {@link tail} as an async iterator: `for await (const op of
 * tailIterator(redeemer, 0)) …`. The tail reads ahead by at most one op.
 * Leaving the loop (break, return, throw) or opts.signal ends it; the
 * redeemer's close ends it too. A permanent error is thrown from the loop.
 */
export function tailIterator(redeemer: Redeemer, from: Cursor, opts: TailOptions = {}): TailIterator {
  const ctl = new AbortController();
  const link = anySignal(opts.signal);
  link.signal.addEventListener("abort", () => ctl.abort(), { once: true });
  if (link.signal.aborted) ctl.abort();
  let offered: { entry: LogEntry; taken: () => void } | undefined;
  let wake: (() => void) | undefined;
  let cursor = from;
  let outcome: { error?: unknown; thrown?: boolean } | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  // An op offered and not taken is let go on abort, so the tail can end.
  ctl.signal.addEventListener("abort", () => offered?.taken(), { once: true });
  const running = tail(
    redeemer,
    from,
    (entry) =>
      new Promise<void>((taken) => {
        if (ctl.signal.aborted) return taken();
        offered = { entry, taken };
        notify();
      }),
    { signal: ctl.signal },
  )
    .then(
      () => (outcome = {}),
      (error: unknown) => (outcome = { error }),
    )
    .finally(() => {
      link.dispose();
      notify();
    });

  const it: TailIterator = {
    get cursor() {
      return cursor;
    },
    async next(): Promise<IteratorResult<LogEntry>> {
      for (;;) {
        if (offered && !ctl.signal.aborted) {
          const { entry, taken } = offered;
          offered = undefined;
          cursor = entry.cursor;
          taken();
          return { done: false, value: entry };
        }
        if (outcome) {
          if (outcome.error !== undefined && !outcome.thrown) {
            outcome.thrown = true;
            throw outcome.error;
          }
          return { done: true, value: undefined };
        }
        await new Promise<void>((r) => (wake = r));
      }
    },
    async return(): Promise<IteratorResult<LogEntry>> {
      ctl.abort();
      await running;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

// Redeemer: a token and a vat URL that keep a live Share, redeeming again
// on a new connection whenever the last one died (the Go client's
// Redeemer: redeem-and-resume, docs/design.md §6).
import { backoff, jittered, sleep } from "./backoff.js";
import { connect, type Conn, type ConnectOptions } from "./conn.js";
import { isPermanent, SharevatError, toSharevatError } from "./errors.js";
import type { Share } from "./share.js";
import type { Limits, Token } from "./wire.js";

/** Options of a {@link Redeemer}; every field has a default. */
export interface RedeemerOptions {
  /** Options of each connection. */
  connect?: ConnectOptions;
  /** The first wait after a failure, in ms; default 100. */
  minBackoffMs?: number;
  /** The longest wait, in ms; default 10,000. */
  maxBackoffMs?: number;
  /** Called after a connect or redeem failed with a transient error, with it and the wait before the next attempt. */
  onRetry?: (err: SharevatError, waitMs: number) => void;
  /** Called each time the token is redeemed on a new connection, the first time included. */
  onRedeem?: () => void;
  /** Called when a call reported by {@link Redeemer.fail} lost the connection the Share lived on. */
  onLost?: (err: SharevatError) => void;
}

/**
 * Holds a share token and the vat's URL and keeps a live {@link Share} of
 * it. {@link Redeemer.share} connects and redeems on first use, and again
 * whenever the last connection died, with exponential backoff and full
 * jitter in its upper half between failed attempts; {@link Redeemer.fail}
 * tells it a call failed. Code that must outlive a connection ({@link tail},
 * the outbox) takes a Redeemer. {@link Redeemer.close} ends it for good.
 */
export class Redeemer {
  readonly url: string;
  readonly #token: Token;
  readonly #opts: RedeemerOptions;
  readonly #min: number;
  readonly #max: number;
  readonly #closer = new AbortController();
  #conn: Conn | undefined;
  #share: Share | undefined;
  #pending: Promise<Share> | undefined;
  #failures = 0;

  /** A Redeemer of token at url. Nothing is dialed until the first {@link Redeemer.share}. */
  constructor(url: string, token: Token, opts: RedeemerOptions = {}) {
    this.url = url;
    this.#token = token.trim();
    this.#opts = opts;
    this.#min = opts.minBackoffMs && opts.minBackoffMs > 0 ? opts.minBackoffMs : 100;
    this.#max = Math.max(opts.maxBackoffMs ?? 10_000, this.#min);
  }

  /** Aborts once {@link Redeemer.close} was called. */
  get closedSignal(): AbortSignal {
    return this.#closer.signal;
  }

  /**
   * The live Share, redeeming the token on a new connection if there is
   * none or the last one died. Transient failures are retried with backoff
   * until signal aborts or the Redeemer is closed (then it rejects with
   * "unavailable"); permanent ones ({@link isPermanent}) reject at once.
   * The Share belongs to the Redeemer: do not release it; after a failed
   * call on it, call {@link Redeemer.fail} and then share() again.
   */
  async share(signal?: AbortSignal): Promise<Share> {
    for (;;) {
      this.#checkOpen(signal);
      if (this.#share && !this.#conn?.isClosed) return this.#share;
      this.#pending ??= this.#connect().finally(() => (this.#pending = undefined));
      try {
        return await raceAbort(this.#pending, signal);
      } catch (err) {
        const e = toSharevatError(err);
        if (isPermanent(e) || this.#closer.signal.aborted || signal?.aborted) throw e;
        const wait = jittered(backoff(this.#min, this.#max, this.#failures++));
        this.#opts.onRetry?.(e, wait);
        await sleep(wait, signal, this.#closer.signal);
      }
    }
  }

  /** The append limits of the vat the live Share is on (connecting if need be). */
  async limits(signal?: AbortSignal): Promise<Limits> {
    const sh = await this.share(signal);
    return sh.conn.limits();
  }

  /**
   * Reports that a call on sh failed with err. A transport failure (not
   * a permanent error) drops the connection, so the next share() call
   * connects again; other errors leave it alone.
   */
  fail(sh: Share, err: unknown): void {
    if (err == null || isPermanent(err) || this.#share !== sh) return;
    this.#drop();
    this.#opts.onLost?.(toSharevatError(err, true));
  }

  /**
   * Closes the connection and ends the Redeemer: share() rejects from now
   * on, its backoff waits and every {@link tail} on it end, and nothing of
   * it keeps the process alive. Idempotent.
   */
  close(): void {
    this.#closer.abort();
    this.#drop();
  }

  async #connect(): Promise<Share> {
    this.#drop();
    const conn = await connect(this.url, { ...this.#opts.connect, signal: this.#closer.signal });
    if (this.#closer.signal.aborted) {
      conn.close();
      throw closedError();
    }
    let sh: Share;
    try {
      sh = await conn.redeem(this.#token);
    } catch (err) {
      conn.close();
      throw err;
    }
    if (this.#closer.signal.aborted) {
      conn.close();
      throw closedError();
    }
    this.#conn = conn;
    this.#share = sh;
    this.#failures = 0;
    this.#opts.onRedeem?.();
    return sh;
  }

  #drop(): void {
    this.#conn?.close();
    this.#conn = undefined;
    this.#share = undefined;
  }

  #checkOpen(signal?: AbortSignal): void {
    if (this.#closer.signal.aborted) throw closedError();
    if (signal?.aborted) throw new SharevatError("unavailable", "aborted");
  }
}

function closedError(): SharevatError {
  return new SharevatError("unavailable", "the redeemer is closed");
}

/** p, or a rejection as soon as signal aborts. */
function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new SharevatError("unavailable", "aborted"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

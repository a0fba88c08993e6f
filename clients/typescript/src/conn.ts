// connect and Conn: one Cap'n Web session over one WebSocket, as the Go
// client's Dial and Conn.
import { RpcSession, type RpcStub } from "capnweb";
import { SharevatError, toSharevatError } from "./errors.js";
import { Admin, Share } from "./share.js";
import { openSocket, SocketTransport } from "./transport.js";
import { capnwebURL } from "./url.js";
import type { Limits, Token, Vault } from "./wire.js";

/** Options of {@link connect}; every field has a default. */
export interface ConnectOptions {
  /** How long opening the WebSocket may take, in ms; default 10,000. */
  connectTimeoutMs?: number;
  /** How often the vat is pinged, in ms; default 15,000; 0: never. */
  pingIntervalMs?: number;
  /** The longest a ping may go unanswered before the connection counts as lost, in ms; default 30,000. */
  pongTimeoutMs?: number;
  /** Gives up connecting when it aborts. */
  signal?: AbortSignal;
}

/**
 * Opens a Cap'n Web session to the vat at url, in any form of the vat's
 * URL (url.ts: its base `http(s)://host:port`, or its `ws(s)://…/rpc` or
 * `…/capnweb` endpoint), at its /capnweb endpoint. Throws "invalid" for a
 * url that cannot name a vat; rejects with an "unavailable" {@link SharevatError}
 * when the vat cannot be reached. Close the Conn when done: it releases
 * every capability of the session and lets the process exit.
 */
export async function connect(url: string, opts: ConnectOptions = {}): Promise<Conn> {
  const target = capnwebURL(url);
  const ws = await openSocket(target, opts.connectTimeoutMs ?? 10_000, opts.signal);
  return new Conn(target, new SocketTransport(ws), opts);
}

/**
 * One connection to a vat (the Go client's Conn). Every capability it
 * hands out dies with it: after a lost connection every call fails with
 * "unavailable", and a {@link Redeemer} redeems again on a new one.
 */
export class Conn {
  /** The /capnweb URL this connection reached. */
  readonly url: string;
  /** Resolves with why the connection ended ("unavailable"), once it has. */
  readonly ended: Promise<SharevatError>;
  /** The raw capnweb stub of the vat's main interface, for what this package does not wrap. */
  readonly vault: RpcStub<Vault>;
  readonly #transport: SocketTransport;
  #pinger: ReturnType<typeof setInterval> | undefined;

  /** @internal Use {@link connect}. */
  constructor(url: string, transport: SocketTransport, opts: ConnectOptions) {
    this.url = url;
    this.#transport = transport;
    this.ended = transport.ended;
    this.vault = new RpcSession<Vault>(transport).getRemoteMain();
    const every = opts.pingIntervalMs ?? 15_000;
    if (every > 0) this.#keepAlive(every, opts.pongTimeoutMs ?? 30_000);
    void this.ended.then(() => clearInterval(this.#pinger));
  }

  /** Whether the connection has ended (closed or lost). */
  get isClosed(): boolean {
    return this.#transport.isEnded;
  }

  /**
   * Runs a call on this connection and turns its failure into a
   * SharevatError ("unavailable" when the connection is gone).
   * @internal
   */
  async call<T>(f: () => PromiseLike<T>): Promise<T> {
    if (this.#transport.isEnded) throw await this.ended;
    try {
      return await f();
    } catch (err) {
      throw toSharevatError(err, this.#transport.isEnded);
    }
  }

  /**
   * Redeems a share token (`svt1_…`; surrounding whitespace is dropped)
   * into a live {@link Share}. Every failure of the token is
   * "unauthorized: invalid or expired token"; "unavailable" when the vat
   * cannot check it now.
   */
  async redeem(token: Token): Promise<Share> {
    const restored = await this.call(() => this.vault.restore(token.trim()));
    return new Share(this, restored.share as never, restored.access, restored.info);
  }

  /** Redeems the server's admin token into an {@link Admin}. */
  async redeemAdmin(token: Token): Promise<Admin> {
    const admin = await this.call(() => this.vault.restoreAdmin(token.trim()));
    return new Admin(this, admin as never);
  }

  /** On a vat started with --open, an Admin that may create shares; otherwise "permissionDenied". */
  async openAdmin(): Promise<Admin> {
    const admin = await this.call(() => this.vault.openAdmin());
    return new Admin(this, admin as never);
  }

  /** Does nothing on the vat and resolves once it answered. */
  async ping(): Promise<void> {
    await this.call(() => this.vault.ping());
  }

  /** The append limits the vat enforces. */
  async limits(): Promise<Limits> {
    return this.call(() => this.vault.limits());
  }

  /** Closes the connection and with it every capability of it. Idempotent. */
  close(): void {
    clearInterval(this.#pinger);
    if (this.#transport.isEnded) return;
    try {
      this.vault[Symbol.dispose]();
    } catch {
      // the session is already broken
    }
    this.#transport.close();
  }

  /** Pings every `every` ms; a ping unanswered for `timeout` ms ends the connection as lost. */
  #keepAlive(every: number, timeout: number): void {
    let outstanding = false;
    this.#pinger = setInterval(() => {
      if (outstanding) return;
      outstanding = true;
      const timer = setTimeout(
        () => this.#transport.abort(new Error(`the vat did not answer a ping within ${timeout} ms`)),
        timeout,
      );
      this.vault
        .ping()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          clearTimeout(timer);
          outstanding = false;
        });
    }, every);
  }
}

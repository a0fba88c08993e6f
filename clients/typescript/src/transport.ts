// The WebSocket under a capnweb session: the `ws` package on Node (Node 20
// has no global WebSocket), the global one on Bun, Deno and browsers, and a
// capnweb RpcTransport over it that reports when the connection ends.
import type { RpcTransport } from "capnweb";
import { SharevatError } from "./errors.js";

/** The part of a WebSocket (the standard one or ws's) this package uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: any) => void): void;
  /** ws only: drops the connection without a closing handshake. */
  terminate?(): void;
}

/** A WebSocket constructor as both ws and the standard declare it. */
type SocketClass = new (url: string, protocols?: string | string[]) => SocketLike;

/** Whether this is Node itself (not Bun, which also sets process.versions.node). */
function onNode(): boolean {
  const p = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process;
  return !!p?.versions?.node && !p.versions.bun && !p.versions.deno;
}

/** The WebSocket class for this runtime. */
async function socketClass(): Promise<SocketClass> {
  if (onNode()) {
    const ws = await import("ws");
    return ws.WebSocket as unknown as SocketClass;
  }
  const g = (globalThis as { WebSocket?: SocketClass }).WebSocket;
  if (!g) throw new SharevatError("unavailable", "this runtime has no WebSocket");
  return g;
}

/**
 * Opens a WebSocket to url, resolving once it is open; rejects
 * "unavailable" after timeoutMs, or at once when signal aborts (the
 * half-open socket is dropped then, so nothing of it lingers).
 */
export async function openSocket(url: string, timeoutMs: number, signal?: AbortSignal): Promise<SocketLike> {
  const Socket = await socketClass();
  if (signal?.aborted) throw new SharevatError("unavailable", `cannot connect to ${url}: aborted`);
  const ws = new Socket(url);
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      fail("aborted");
      drop(ws);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const fail = (why: string) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(new SharevatError("unavailable", `cannot connect to ${url}: ${why}`));
    };
    const timer = setTimeout(() => {
      fail(`no answer within ${timeoutMs} ms`);
      drop(ws);
    }, timeoutMs);
    ws.addEventListener("open", () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    ws.addEventListener("error", (e: { message?: string; error?: { message?: string } }) =>
      fail(e?.error?.message ?? e?.message ?? "connection failed"),
    );
    ws.addEventListener("close", (e: { code?: number }) => fail(`closed (${e?.code ?? "?"})`));
  });
  return ws;
}

/** Closes ws at once: ws's terminate, or a normal close elsewhere. */
function drop(ws: SocketLike): void {
  try {
    if (ws.terminate) ws.terminate();
    else ws.close(1000);
  } catch {
    // already closed
  }
}

/**
 * A capnweb RpcTransport over an open socket. `ended` resolves with why
 * the connection ended (always an "unavailable" SharevatError) once it has;
 * close() ends it from this side.
 */
export class SocketTransport implements RpcTransport {
  readonly ended: Promise<SharevatError>;
  #ws: SocketLike;
  #queue: string[] = [];
  #waiter: { resolve: (m: string) => void; reject: (e: unknown) => void } | undefined;
  #error: SharevatError | undefined;
  #end!: (e: SharevatError) => void;

  constructor(ws: SocketLike) {
    this.#ws = ws;
    this.ended = new Promise((resolve) => (this.#end = resolve));
    ws.addEventListener("message", (e: { data: unknown }) => {
      if (typeof e.data !== "string") {
        this.#fail("the vat sent a binary frame");
        drop(ws);
        return;
      }
      if (this.#waiter) {
        const w = this.#waiter;
        this.#waiter = undefined;
        w.resolve(e.data);
      } else this.#queue.push(e.data);
    });
    ws.addEventListener("close", (e: { code?: number; reason?: string }) =>
      this.#fail(`closed (${e?.code ?? "?"}${e?.reason ? ` ${e.reason}` : ""})`),
    );
    ws.addEventListener("error", (e: { message?: string }) => this.#fail(e?.message ?? "socket error"));
  }

  /** Whether the connection has ended. */
  get isEnded(): boolean {
    return this.#error !== undefined;
  }

  send(message: string): void {
    if (this.#error) return; // the session learns of the end through receive
    this.#ws.send(message);
  }

  receive(): Promise<string> {
    const next = this.#queue.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  abort(reason: unknown): void {
    const why = reason instanceof Error ? reason.message : String(reason);
    this.#fail(`aborted: ${why}`);
    this.close();
  }

  /**
   * Ends the connection from this side: a normal close, and a hard drop
   * if the vat has not answered it within a second (a timer that does not
   * keep the process alive).
   */
  close(): void {
    this.#fail("closed by the client");
    try {
      this.#ws.close(1000, "");
    } catch {
      // already closed
    }
    if (this.#ws.terminate) {
      const t = setTimeout(() => drop(this.#ws), 1000);
      (t as { unref?: () => void }).unref?.();
    }
  }

  #fail(why: string): void {
    if (this.#error) return;
    this.#error = new SharevatError("unavailable", `connection lost: ${why}`);
    this.#end(this.#error);
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w.reject(this.#error);
    }
  }
}

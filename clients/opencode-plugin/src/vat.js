// @ts-check
// The vat connection of the plugin: one capnweb WebSocket session to the
// vat's /capnweb, opened when there is something to send and closed when
// idle (so it never keeps opencode's process alive).
import { newWebSocketRpcSession } from "capnweb";

/** Error codes after which retrying cannot help: the flush of a session stops and keeps its ops. */
export const FATAL = new Set(["unauthorized", "revoked", "permissionDenied", "notFound"]);

/**
 * wsURL turns the configured vat URL (http(s)://host[:port][/prefix] or
 * ws(s)://…/capnweb) into the /capnweb WebSocket URL.
 * @param {string} url
 */
export function wsURL(url) {
  const u = new URL(url);
  if (u.protocol === "http:") u.protocol = "ws:";
  if (u.protocol === "https:") u.protocol = "wss:";
  if (!u.pathname.endsWith("/capnweb")) u.pathname = u.pathname.replace(/\/$/, "") + "/capnweb";
  return u.toString();
}

/**
 * httpBase is the vat's web origin and prefix (what share links start with).
 * @param {string} url
 */
export function httpBase(url) {
  const u = new URL(wsURL(url));
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = u.pathname.replace(/\/capnweb$/, "");
  return u.toString().replace(/\/$/, "");
}

/**
 * Returns the runtime's WebSocket (Bun, Node ≥ 22); on Node 20, which has
 * none, lends the global one the ws package's (capnweb's transport refers
 * to the global).
 * @returns {Promise<typeof WebSocket>}
 */
async function webSocketClass() {
  if (typeof globalThis.WebSocket !== "function") {
    const ws = await import("ws");
    globalThis.WebSocket = /** @type {any} */ (ws.WebSocket);
  }
  return globalThis.WebSocket;
}

/** A lazily opened connection to the vat. */
export class VatConn {
  /** @param {string} url the vat's URL */
  constructor(url) {
    this.url = wsURL(url);
    /** @type {any} */
    this.vault = null;
    /** @type {Map<string, Promise<any>>} owner token → restore answer, per connection */
    this.restored = new Map();
  }

  /** @returns {Promise<any>} the Vault stub, connecting when needed */
  async open() {
    if (this.vault) return this.vault;
    const WS = await webSocketClass();
    const socket = new WS(this.url);
    this.vault = newWebSocketRpcSession(/** @type {any} */ (socket));
    return this.vault;
  }

  /**
   * Restores a share token once per connection.
   * @param {string} token
   * @returns {Promise<{share: any, access: {epoch: number}}>}
   */
  async restore(token) {
    let p = this.restored.get(token);
    if (!p) {
      const vault = await this.open();
      p = vault.restore(token);
      this.restored.set(token, /** @type {Promise<any>} */ (p));
      /** @type {Promise<any>} */ (p).catch(() => this.restored.delete(token));
    }
    return p;
  }

  /** Closes the connection; the next call opens a new one. */
  close() {
    const v = this.vault;
    this.vault = null;
    this.restored.clear();
    if (v) {
      try {
        v[Symbol.dispose]();
      } catch {
        // already broken
      }
    }
  }
}

/**
 * shareLinkBase asks the vat's page for its link base (GET /s/base), or
 * derives it from the URL when the vat does not answer.
 * @param {string} url
 */
export async function shareLinkBase(url) {
  const base = httpBase(url);
  try {
    const res = await fetch(base + "/s/base", { signal: AbortSignal.timeout(5000) });
    if (res.ok) {
      const j = await res.json();
      if (typeof j.base === "string" && j.base) return j.base.replace(/\/$/, "");
    }
  } catch {
    // fall back to the configured URL
  }
  return base;
}

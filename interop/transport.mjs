// A capnp-es RPC transport over a WebSocket (the `ws` package): one Cap'n
// Proto message per binary WebSocket message, standard unpacked segment
// framing inside — the convention of the reference C++
// capnp::WebSocketMessageStream, which sharevat's rpc package speaks.
//
// capnp-es ships a DeferredTransport, but it keeps a single pending
// promise: a second message arriving before Conn asks for the next one is
// silently lost (ws emits every frame of one TCP read in the same tick).
// This transport queues instead. capnp-es's Conn also never fails its
// pending questions when the connection ends, so `closed` rejects with the
// reason, for callers to race their awaits against.

import { Message } from "capnp-es";
import { Message as RpcMessage } from "capnp-es/capnp/rpc";
import WebSocket from "ws";

export class WebSocketTransport {
  /** @param {WebSocket} ws an open WebSocket */
  constructor(ws) {
    this.ws = ws;
    this.queue = []; // received RPC messages nobody asked for yet
    this.waiters = []; // recvMessage calls waiting for a message
    this.error = null; // why the transport ended, once it has
    this.closed = new Promise((_, reject) => {
      this.rejectClosed = reject;
    });
    this.closed.catch(() => {}); // observed through race(), not here
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        this.fail(new Error("transport: received a text frame"));
        return;
      }
      let msg;
      try {
        // A Buffer is copied by Message (never pass its .buffer: it may
        // be a shared pool). false: not packed.
        msg = new Message(data, false).getRoot(RpcMessage);
      } catch (err) {
        this.fail(new Error(`transport: malformed message: ${err.message}`));
        return;
      }
      const w = this.waiters.shift();
      if (w) w.resolve(msg);
      else this.queue.push(msg);
    });
    ws.on("close", (code, reason) => {
      this.fail(new Error(`transport: connection closed (${code} ${reason.toString() || "no reason"})`));
    });
    ws.on("error", (err) => this.fail(new Error(`transport: ${err.message}`)));
  }

  /** Dials url and resolves once the WebSocket is open. */
  static connect(url, { timeoutMs = 10000 } = {}) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { handshakeTimeout: timeoutMs, maxPayload: 64 << 20 });
      ws.binaryType = "nodebuffer";
      ws.once("open", () => resolve(new WebSocketTransport(ws)));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) =>
        reject(new Error(`transport: HTTP ${res.statusCode} from ${url}`)),
      );
    });
  }

  // --- capnp-es Transport interface ---------------------------------

  sendMessage(msg) {
    if (this.error) throw this.error;
    // The whole message, segment table first, as one binary frame.
    this.ws.send(new Uint8Array(msg.segment.message.toArrayBuffer()), { binary: true });
  }

  recvMessage() {
    const msg = this.queue.shift();
    if (msg) return Promise.resolve(msg);
    // Rejecting with undefined ends Conn's receive loop quietly.
    if (this.error) return Promise.reject();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  close() {
    this.fail(new Error("transport: closed locally"));
  }

  // ------------------------------------------------------------------

  fail(err) {
    if (this.error) return;
    this.error = err;
    this.rejectClosed(err);
    for (const w of this.waiters.splice(0)) w.reject();
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
  }

  /** Resolves as p does, or rejects when the connection ends first. */
  race(p) {
    return Promise.race([p, this.closed]);
  }

  /** Closes with a normal close frame and waits (briefly) for the peer's. */
  async shutdown(timeoutMs = 2000) {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const done = new Promise((resolve) => this.ws.once("close", resolve));
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    await Promise.race([done, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    this.ws.terminate();
  }
}

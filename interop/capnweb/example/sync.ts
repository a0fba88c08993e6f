// An opencode-style sync loop over Cap'n Web: the tool's session is
// messages made of parts; every change of a part becomes an op whose id is
// derived from (message id, part id, revision), so sending it twice — after
// a lost answer, a crash, a reconnect — is answered "duplicate", never
// stored twice. Ops wait in `pending` until an ack covers them; after the
// connection breaks, the next flush opens a new session, redeems the token
// again and re-sends whatever is still pending.
//
// Run (against `sharevat serve`, with a token from `sharevat create`):
//   npx tsc -p . --outDir build && SHAREVAT_TOKEN=… node build/example/sync.js
import { newWebSocketRpcSession, type RpcPromise, type RpcStub } from "capnweb";
import { pathToFileURL } from "node:url";
import { WebSocket as NodeWebSocket } from "ws";
import type { Appender, Json, Op, SharevatError, Vault } from "../sharevat.js";

// capnweb speaks through the global WebSocket (browsers, Bun, Deno,
// Node >= 22). Node 20 has none: lend it the ws package's.
globalThis.WebSocket ??= NodeWebSocket as unknown as typeof WebSocket;

/** One revision of one part of one message, as the tool holds it. */
export interface PartUpdate {
  messageId: string;
  partId: string;
  revision: number;
  body: Json;
}

/** Keeps one share in step with the tool's session. */
export class ShareSync {
  readonly #pending = new Map<string, Op>(); // op id → op not yet acknowledged
  #conn?: { vault: RpcStub<Vault>; appender: RpcPromise<Appender>; epoch: RpcPromise<number> };

  constructor(readonly url: string, readonly token: string) {}

  /** Queues a part's new revision. */
  update(p: PartUpdate): void {
    const opId = `${p.messageId}:${p.partId}:${p.revision}`;
    this.#pending.set(opId, { opId, kind: "part", key: `${p.messageId}:${p.partId}`, body: p.body });
  }

  /** Sends every pending op, reconnecting (up to `tries` times) when the connection breaks. */
  async flush(tries = 5): Promise<void> {
    for (let attempt = 1; this.#pending.size > 0; attempt++) {
      const conn = (this.#conn ??= this.#connect());
      const ops = [...this.#pending.values()].map((op, seq) => ({ ...op, seq }));
      try {
        const ack = await conn.appender.append({ batchId: `b${Date.now()}`, epoch: conn.epoch, ops });
        for (const r of ack.results) {
          if (r.status === "rejected") throw new Error(`op ${r.opId} rejected: ${r.reason} (${r.detail})`);
          this.#pending.delete(r.opId); // applied, or a duplicate of an earlier send
        }
      } catch (err) {
        if (fromVat(err) || attempt >= tries) throw err; // the vat said no: resending cannot help
        this.close(); // the connection broke: the next try redeems the token on a new one
      }
    }
  }

  /** Ends the session. */
  close(): void {
    this.#conn?.appender[Symbol.dispose]();
    this.#conn?.vault[Symbol.dispose]();
    this.#conn = undefined;
  }

  /**
   * Opens a session. Nothing is awaited: restore, appender() and the epoch
   * the token was redeemed at are promises the first append pipelines on,
   * so the three calls cost one round trip.
   */
  #connect() {
    const vault = newWebSocketRpcSession<Vault>(this.url);
    const restored = vault.restore(this.token);
    const conn = { vault, appender: restored.share.appender(), epoch: restored.access.epoch };
    vault.onRpcBroken(() => { if (this.#conn === conn) this.#conn = undefined; });
    return conn;
  }
}

/** Whether err is the vat's answer ("<code>: <message>"), not a broken connection. */
function fromVat(err: unknown): err is SharevatError {
  const code = (err as Partial<SharevatError>).code;
  return err instanceof Error && typeof code === "string" && err.message.startsWith(`${code}: `);
}

// A tiny demo: stream a reply's text part in three revisions.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.env.SHAREVAT_TOKEN) {
  const sync = new ShareSync(process.env.SHAREVAT_URL ?? "ws://127.0.0.1:7420/capnweb", process.env.SHAREVAT_TOKEN);
  for (const [revision, text] of ["Hel", "Hello", "Hello, world"].entries()) {
    sync.update({ messageId: "msg_1", partId: "prt_1", revision, body: { type: "text", text } });
    await sync.flush();
  }
  sync.close();
}

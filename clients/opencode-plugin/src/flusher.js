// @ts-check
// The background flush: for each session with unsent ops, create its vat
// share on first use (an owner token and a read-only link, kept in the
// session's share.json), then append the outbox's ops in batches and
// acknowledge them in the outbox. A network error retries with backoff;
// a revoked or unknown token stops that session's flush with a log line
// and keeps its ops on disk.
import fs from "node:fs";
import path from "node:path";
import { SessionOutbox } from "./outbox.js";
import { FATAL, VatConn, shareLinkBase } from "./vat.js";

/**
 * @typedef {object} FlusherOptions
 * @property {string} url the vat's URL
 * @property {string} token the vat's admin token (creates one share per session)
 * @property {string} dir the outbox directory (one subdirectory per session)
 * @property {(line: string) => void} log where log lines go (never given a token)
 * @property {(sessionID: string, link: string) => void} [onLink] told a session's share link once it exists
 * @property {number} [debounceMs] wait this long after an enqueue before flushing (default 50)
 * @property {boolean} [keepAlive] let retry timers keep the process alive (the flush command; the plugin never does)
 */

const encoder = new TextEncoder();

/** The file that marks a session to unshare (its vat share to delete). */
export const DELETE_MARK = "unshare";

/** Sends outboxes to the vat in the background. */
export class Flusher {
  /** @param {FlusherOptions} o */
  constructor(o) {
    this.o = o;
    this.conn = new VatConn(o.url);
    /** @type {Map<string, SessionOutbox>} */
    this.boxes = new Map();
    /** @type {Map<string, Promise<void>>} running flushes */
    this.running = new Map();
    /** @type {Set<string>} sessions whose flush stopped for good */
    this.stopped = new Set();
    /** @type {Map<string, any>} session meta (title, directory…) from session items */
    this.meta = new Map();
    this.limits = { maxOpsPerBatch: 1000, maxBatchBytes: 8 << 20 };
    this.backoff = 0;
    this.closed = false;
    /** @type {Set<string>} sessions kicked while their flush ran */
    this.again = new Set();
  }

  /** @param {string} sessionID @returns {SessionOutbox} */
  outbox(sessionID) {
    let ob = this.boxes.get(sessionID);
    if (!ob) {
      if (!/^[A-Za-z0-9_-]+$/.test(sessionID)) throw new Error(`session id ${JSON.stringify(sessionID)} is not a safe directory name`);
      ob = new SessionOutbox(path.join(this.o.dir, sessionID));
      this.boxes.set(sessionID, ob);
    }
    return ob;
  }

  /** The sessions that have an outbox directory on disk. */
  sessionsOnDisk() {
    try {
      return fs.readdirSync(this.o.dir).filter((d) => fs.existsSync(path.join(this.o.dir, d, "ops.jsonl")));
    } catch {
      return [];
    }
  }

  /**
   * Starts (or schedules again) the flush of sessionID; resolves when the
   * flush that includes everything enqueued so far has ended.
   * @param {string} sessionID
   * @returns {Promise<void>}
   */
  kick(sessionID) {
    if (this.closed || this.stopped.has(sessionID)) return Promise.resolve();
    const cur = this.running.get(sessionID);
    if (cur) {
      this.again.add(sessionID);
      return cur;
    }
    const p = this.run(sessionID).finally(() => {
      this.running.delete(sessionID);
      if (this.again.delete(sessionID)) this.kick(sessionID);
      else if (this.running.size === 0) this.conn.close();
    });
    this.running.set(sessionID, p);
    return p;
  }

  /** @param {string} sessionID */
  async run(sessionID) {
    await delay(this.o.debounceMs ?? 50, this.o.keepAlive);
    if (this.closed) return;
    const ob = this.outbox(sessionID);
    while (!this.closed) {
      try {
        if (fs.existsSync(path.join(ob.dir, DELETE_MARK))) return await this.deleteShare(sessionID, ob);
        await this.flushOnce(sessionID, ob);
        this.backoff = 0;
        return;
      } catch (err) {
        if (this.fatal(sessionID, err)) return;
        this.conn.close();
        this.backoff = Math.min(Math.max(this.backoff * 2, 200), 10_000);
        this.o.log(`sharevat: session ${sessionID}: vat unreachable (${errText(err)}); retrying in ${this.backoff} ms`);
        await delay(this.backoff * (0.5 + Math.random() / 2), this.o.keepAlive);
      }
    }
  }

  /**
   * Reports err and stops the session's flush when retrying cannot help.
   * @param {string} sessionID @param {any} err
   */
  fatal(sessionID, err) {
    const code = err?.code;
    if (!FATAL.has(code)) return false;
    this.stopped.add(sessionID);
    this.o.log(
      `sharevat: session ${sessionID}: the vat refused the token (${code}); flush stopped, ` +
        `unsent ops kept in ${path.join(this.o.dir, sessionID)}`,
    );
    return true;
  }

  /**
   * Sends every pending op of ob, batch by batch.
   * @param {string} sessionID @param {SessionOutbox} ob
   */
  async flushOnce(sessionID, ob) {
    while (ob.hasPending()) {
      const share = await this.ensureShare(sessionID, ob);
      const restored = await this.conn.restore(share.token);
      const { ops, end } = ob.pending(this.limits.maxOpsPerBatch, this.limits.maxBatchBytes / 2);
      if (ops.length === 0) throw new Error(`outbox ${ob.opsPath}: an unreadable line at offset ${ob.acked}`);
      const ack = await restored.share.appender().append({
        batchId: `${sessionID}@${ob.acked}`,
        epoch: restored.access.epoch,
        ops: ops.map((op, i) => ({ opId: op.opId, seq: i, kind: op.kind, key: op.key, body: encoder.encode(op.body) })),
      });
      this.reportRejected(sessionID, ob, ack.results ?? []);
      ob.ack(end);
    }
  }

  /**
   * Logs each rejected op once and keeps it in the session's failed.jsonl.
   * @param {string} sessionID @param {SessionOutbox} ob @param {any[]} results
   */
  reportRejected(sessionID, ob, results) {
    for (const r of results) {
      if (r.status !== "rejected") continue;
      if (r.reason === "staleEpoch") throw Object.assign(new Error("stale epoch"), { code: "revoked" });
      this.o.log(`sharevat: session ${sessionID}: op ${r.opId} rejected (${r.reason}: ${r.detail})`);
      fs.appendFileSync(path.join(ob.dir, "failed.jsonl"), JSON.stringify(r) + "\n", { mode: 0o600 });
    }
  }

  /**
   * Returns the session's share (id, owner token, link), creating it on
   * the vat with the admin token the first time.
   * @param {string} sessionID @param {SessionOutbox} ob
   */
  async ensureShare(sessionID, ob) {
    const have = ob.readShare();
    if (have) return have;
    const vault = await this.conn.open();
    const m = this.meta.get(sessionID) ?? {};
    const admin = vault.restoreAdmin(this.o.token);
    const created = await admin.createShare({
      title: m.title ?? sessionID,
      projectId: m.projectID ?? "",
      directory: m.directory ?? "",
      version: m.version ?? "",
    });
    const minted = await created.share.grant({ read: true }, 0, `opencode link ${sessionID}`);
    const link = `${await shareLinkBase(this.o.url)}/s/#${minted.token}`;
    const share = { sessionID, shareId: created.info.id, token: created.owner.token, link };
    ob.writeShare(share);
    this.o.onLink?.(sessionID, link);
    return share;
  }

  /**
   * Unshares sessionID: durably marks it (so a later start finishes the
   * job when the vat is down now), then deletes its vat share and its
   * outbox directory in the background.
   * @param {string} sessionID
   */
  remove(sessionID) {
    const ob = this.outbox(sessionID);
    fs.writeFileSync(path.join(ob.dir, DELETE_MARK), "", { mode: 0o600 });
    this.stopped.delete(sessionID);
    return this.kick(sessionID);
  }

  /**
   * Deletes the session's vat share (Share.delete, as `sharevat delete`)
   * and then its outbox directory.
   * @param {string} sessionID @param {SessionOutbox} ob
   */
  async deleteShare(sessionID, ob) {
    const share = ob.readShare();
    if (share) {
      try {
        const restored = await this.conn.restore(share.token);
        await restored.share.delete();
      } catch (err) {
        if (!FATAL.has(/** @type {any} */ (err)?.code)) throw err;
      }
    }
    ob.close();
    this.boxes.delete(sessionID);
    fs.rmSync(ob.dir, { recursive: true, force: true });
    this.stopped.add(sessionID);
    this.o.log(`sharevat: session ${sessionID}: unshared (vat share deleted)`);
  }

  /**
   * Flushes every session with an outbox on disk; resolves when each has
   * ended (sent everything, or stopped). For `flush` and for start-up.
   */
  async flushAll() {
    await Promise.all(this.sessionsOnDisk().map((s) => this.kick(s)));
  }

  /** Stops every flush (at its next step), closes the connection and the outbox files. */
  close() {
    this.closed = true;
    this.conn.close();
    for (const ob of this.boxes.values()) ob.close();
    this.boxes.clear();
  }
}

/**
 * Waits ms; unless keepAlive, on an unref'd timer, so a pending retry never
 * keeps opencode's process alive.
 * @param {number} ms @param {boolean} [keepAlive]
 */
function delay(ms, keepAlive) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    if (!keepAlive && typeof t === "object" && t && "unref" in t) t.unref();
  });
}

/** @param {any} err */
function errText(err) {
  return String(err?.message ?? err).slice(0, 200);
}

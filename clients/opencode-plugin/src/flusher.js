// @ts-check
// The background flush. Each shared session has a directory holding the
// package's durable outbox (`outbox`, @sharevat/client/outbox's file
// storage: ops are enqueued with enqueueSync, so they are on disk before
// opencode's event hook returns) and share.json (the share the opencode
// door answered for the session: its id, owner token and link). A flush
// asks the door for the share the first time, then sends the outbox
// through the package's Redeemer; a network error retries with backoff
// inside the outbox's flush; a refused token stops that session's flush
// with a log line and keeps its ops on disk.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Redeemer } from "@sharevat/client";
import { Outbox } from "@sharevat/client/outbox";
import { FATAL, createShare, httpBase } from "./vat.js";

/**
 * @typedef {object} FlusherOptions
 * @property {string} url the vat's URL
 * @property {string} token a creation token (`sharevat opencode-token mint`): the door makes one share per session with it
 * @property {string} dir the outbox directory (one subdirectory per session)
 * @property {(line: string) => void} log where log lines go (never given a token)
 * @property {(sessionID: string, link: string) => void} [onLink] told a session's share link once it exists
 * @property {number} [debounceMs] wait this long after an enqueue before flushing (default 50)
 * @property {boolean} [keepAlive] let waits keep the process alive (the flush command; the plugin never does)
 * @property {import("@sharevat/client/outbox").OutboxOptions} [outbox] options of each session's outbox (batch sizes, backoff, onAck)
 */

/** The file that marks a session to unshare (its vat share to delete). */
export const DELETE_MARK = "unshare";
/** The outbox file in a session's directory. */
export const OUTBOX = "outbox";

/** Sends outboxes to the vat in the background. */
export class Flusher {
  /** @param {FlusherOptions} o */
  constructor(o) {
    this.o = o;
    /** @type {Map<string, Outbox>} */
    this.boxes = new Map();
    /** @type {Map<string, Promise<void>>} running flushes */
    this.running = new Map();
    /** @type {Set<string>} sessions whose flush stopped for good */
    this.stopped = new Set();
    /** @type {Set<string>} sessions kicked while their flush ran */
    this.again = new Set();
    this.closer = new AbortController();
    /** @type {Map<string, Outbox[]>} other outbox files of a session this process flushes (left by processes that are gone) */
    this.adopted = new Map();
  }

  /**
   * The session's outbox this process writes to, opened synchronously (so
   * the first event of a session is durable before its hook returns too).
   * That is the session's main outbox file, or, while another process
   * holds it (a second opencode on the same session: `opencode run
   * --continue` while the TUI has it open), a side outbox of this process
   * ("outbox.<pid>-<random>") in the same directory: nothing waits and
   * nothing is lost. Both flush into the session's one share; op ids are
   * content-derived, so what both send is kept once, and the vat's state
   * keeps the newest version of each item whatever order the two (and
   * stock opencode through the door) deliver them in (the vat's version
   * rule, docs/design.md §5 "Kinds and state").
   * @param {string} sessionID @returns {Outbox}
   */
  outbox(sessionID) {
    let ob = this.boxes.get(sessionID);
    if (!ob) {
      if (!/^[A-Za-z0-9_-]+$/.test(sessionID)) throw new Error(`session id ${JSON.stringify(sessionID)} is not a safe directory name`);
      const dir = this.dirOf(sessionID);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      ob = this.tryOpen(path.join(dir, OUTBOX)) ?? undefined;
      if (!ob) {
        const side = `${OUTBOX}.${process.pid}-${randomBytes(4).toString("hex")}`;
        ob = /** @type {Outbox} */ (this.tryOpen(path.join(dir, side)));
        this.o.log(`sharevat: session ${sessionID}: its outbox is held by another process; this one writes to ${side}`);
      }
      this.boxes.set(sessionID, ob);
    }
    return ob;
  }

  /**
   * Opens the outbox file at file without waiting, or returns null when
   * another live process holds it (a holder that is gone is taken over).
   * @param {string} file @returns {Outbox | null}
   */
  tryOpen(file) {
    try {
      return Outbox.openSync(file, { ...this.o.outbox, lockTimeoutMs: 0 });
    } catch (err) {
      if (/** @type {any} */ (err)?.code === "unavailable" && /is in use/.test(String(/** @type {any} */ (err)?.message))) return null;
      throw err;
    }
  }

  /**
   * Opens, to flush them, the session's outbox files that no live process
   * holds and this one has not open: the main file, and the side outboxes
   * other processes left (exit, crash, SIGKILL). The first that is free
   * becomes this process's outbox when it has none yet.
   * @param {string} sessionID
   */
  adopt(sessionID) {
    const dir = this.dirOf(sessionID);
    const mine = new Set([this.boxes.get(sessionID), ...(this.adopted.get(sessionID) ?? [])].map((ob) => ob?.path));
    for (const name of outboxFiles(dir)) {
      const file = path.join(dir, name);
      if (mine.has(file)) continue;
      const ob = this.tryOpen(file);
      if (!ob) continue;
      if (!this.boxes.has(sessionID) && name === OUTBOX) this.boxes.set(sessionID, ob);
      else this.adopted.set(sessionID, [...(this.adopted.get(sessionID) ?? []), ob]);
    }
  }

  /**
   * The ops of the session still to send in the outboxes this process has
   * open.
   * @param {string} sessionID
   */
  pending(sessionID) {
    return this.open(sessionID).reduce((n, ob) => n + ob.status().pending, 0);
  }

  /** @param {string} sessionID @returns {Outbox[]} the session's outboxes this process has open */
  open(sessionID) {
    const own = this.boxes.get(sessionID);
    return [...(own ? [own] : []), ...(this.adopted.get(sessionID) ?? [])];
  }

  /** @param {string} sessionID */
  dirOf(sessionID) {
    return path.join(this.o.dir, sessionID);
  }

  /** The sessions that have an outbox on disk (a main or a side one). */
  sessionsOnDisk() {
    try {
      return fs.readdirSync(this.o.dir).filter((d) => outboxFiles(path.join(this.o.dir, d)).length > 0);
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
    if (this.closer.signal.aborted || this.stopped.has(sessionID)) return Promise.resolve();
    const cur = this.running.get(sessionID);
    if (cur) {
      this.again.add(sessionID);
      return cur;
    }
    const p = this.run(sessionID).finally(() => {
      this.running.delete(sessionID);
      if (this.again.delete(sessionID)) this.kick(sessionID);
    });
    this.running.set(sessionID, p);
    return p;
  }

  /** @param {string} sessionID */
  async run(sessionID) {
    await delay(this.o.debounceMs ?? 50, this.o.keepAlive, this.closer.signal);
    for (let failures = 0; !this.closer.signal.aborted; failures++) {
      try {
        if (fs.existsSync(path.join(this.dirOf(sessionID), DELETE_MARK))) return await this.deleteShare(sessionID);
        return await this.flushOnce(sessionID);
      } catch (err) {
        if (this.closer.signal.aborted || this.fatal(sessionID, err)) return;
        const wait = Math.min(200 * 2 ** Math.min(failures, 6), 10_000) * (0.5 + Math.random() / 2);
        this.o.log(`sharevat: session ${sessionID}: vat unreachable (${errText(err)}); retrying in ${Math.round(wait)} ms`);
        await delay(wait, this.o.keepAlive, this.closer.signal);
      }
    }
  }

  /**
   * Reports err and stops the session's flush when retrying cannot help.
   * @param {string} sessionID @param {any} err
   */
  fatal(sessionID, err) {
    if (!FATAL.has(err?.code)) return false;
    this.stopped.add(sessionID);
    this.o.log(
      `sharevat: session ${sessionID}: the vat refused the token (${errText(err)}); flush stopped, ` +
        `unsent ops kept in ${this.dirOf(sessionID)}`,
    );
    return true;
  }

  /**
   * Sends every pending op of the session's outbox through a Redeemer of
   * its share's owner token, closed when done (an idle plugin holds no
   * connection).
   * @param {string} sessionID
   */
  async flushOnce(sessionID) {
    if (this.pending(sessionID) === 0) return this.retireAdopted(sessionID);
    const share = await this.ensureShare(sessionID);
    const r = new Redeemer(httpBase(this.o.url), share.token, { maxBackoffMs: 10_000 });
    try {
      do {
        for (const ob of this.open(sessionID)) await ob.flush(r, { signal: this.closer.signal });
      } while (this.pending(sessionID) > 0 && !this.closer.signal.aborted);
    } finally {
      r.close();
    }
    await this.retireAdopted(sessionID);
  }

  /**
   * Removes the adopted outboxes of the session that are sent whole (their
   * file while still holding its lock, then the lock).
   * @param {string} sessionID
   */
  async retireAdopted(sessionID) {
    const keep = [];
    for (const ob of this.adopted.get(sessionID) ?? []) {
      if (!(await retire(ob))) keep.push(ob);
    }
    if (keep.length > 0) this.adopted.set(sessionID, keep);
    else this.adopted.delete(sessionID);
  }

  /**
   * The session's share from share.json, or asked of the door with the
   * creation token the first time (the door answers the same share again
   * for the same token and session: a crash between its answer and the
   * write of share.json costs nothing).
   * @param {string} sessionID
   * @returns {Promise<import("./vat.js").DoorShare>}
   */
  async ensureShare(sessionID) {
    const have = this.readShare(sessionID);
    if (have) return have;
    const share = await createShare(this.o.url, this.o.token, sessionID, this.closer.signal);
    writeDurable(path.join(this.dirOf(sessionID), "share.json"), JSON.stringify(share, null, 2) + "\n");
    this.o.onLink?.(sessionID, share.link);
    return share;
  }

  /** @param {string} sessionID @returns {import("./vat.js").DoorShare | null} share.json, or null */
  readShare(sessionID) {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dirOf(sessionID), "share.json"), "utf8"));
    } catch {
      return null;
    }
  }

  /**
   * Unshares sessionID: durably marks it (so a later start finishes the
   * job when the vat is down now), then deletes its vat share and its
   * outbox directory in the background.
   * @param {string} sessionID
   */
  remove(sessionID) {
    fs.mkdirSync(this.dirOf(sessionID), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(this.dirOf(sessionID), DELETE_MARK), "", { mode: 0o600 });
    this.stopped.delete(sessionID);
    return this.kick(sessionID);
  }

  /**
   * Deletes the session's vat share (Share.delete, as the door's DELETE
   * and `sharevat delete`) and then its outbox directory.
   * @param {string} sessionID
   */
  async deleteShare(sessionID) {
    const share = this.readShare(sessionID);
    if (share) {
      const r = new Redeemer(httpBase(this.o.url), share.token);
      try {
        await (await r.share(this.closer.signal)).delete();
      } catch (err) {
        if (!FATAL.has(/** @type {any} */ (err)?.code)) throw err;
      } finally {
        r.close();
      }
    }
    await Promise.allSettled(this.open(sessionID).map((ob) => ob.close()));
    this.boxes.delete(sessionID);
    this.adopted.delete(sessionID);
    fs.rmSync(this.dirOf(sessionID), { recursive: true, force: true });
    this.stopped.add(sessionID);
    this.o.log(`sharevat: session ${sessionID}: unshared (vat share deleted)`);
  }

  /**
   * Flushes every session with an outbox on disk; resolves when each has
   * ended (sent everything, or stopped). For `flush` and for start-up.
   */
  async flushAll() {
    await Promise.all(this.sessionsOnDisk().map((s) => (this.adopt(s), this.kick(s))));
  }

  /**
   * Stops every flush (at once: its ops stay pending), and closes the
   * outboxes; a side outbox with nothing left in it is removed.
   */
  async close() {
    this.closer.abort();
    await Promise.allSettled([...this.running.values()]);
    const all = [...this.boxes.values(), ...[...this.adopted.values()].flat()];
    await Promise.allSettled(all.map(async (ob) => (await retire(ob)) || (await ob.close())));
    this.boxes.clear();
    this.adopted.clear();
  }
}

/**
 * The outbox files in a session's directory: the main one ("outbox") and
 * side ones ("outbox.<pid>-<random>"), never their lock or temporary files.
 * @param {string} dir
 */
export function outboxFiles(dir) {
  try {
    return fs.readdirSync(dir).filter((n) => n === OUTBOX || /^outbox\.\d+-[0-9a-f]+$/.test(n)).sort();
  } catch {
    return [];
  }
}

/**
 * Removes a side outbox that holds nothing to send or keep (no pending
 * and no rejected op): deletes its file while holding its lock, then
 * closes it. Returns whether it did. The main outbox is never removed.
 * @param {Outbox} ob
 */
async function retire(ob) {
  const st = ob.status();
  if (path.basename(ob.path) === OUTBOX || st.pending > 0 || st.failed > 0) return false;
  fs.rmSync(ob.path, { force: true });
  await ob.close();
  return true;
}

/**
 * Waits ms or until signal aborts; unless keepAlive, on an unref'd timer,
 * so a pending retry never keeps opencode's process alive.
 * @param {number} ms @param {boolean | undefined} keepAlive @param {AbortSignal} signal
 */
function delay(ms, keepAlive, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve(undefined);
    }
    signal.addEventListener("abort", done, { once: true });
    if (!keepAlive && typeof t === "object" && t && "unref" in t) t.unref();
  });
}

/** @param {any} err */
function errText(err) {
  return String(err?.message ?? err).slice(0, 200);
}

/**
 * Replaces file with text atomically and durably (temp file, fsync,
 * rename), mode 0600.
 * @param {string} file
 * @param {string} text
 */
export function writeDurable(file, text) {
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`; // two processes may write the same file
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

// @ts-check
// A per-session file outbox: ops.jsonl holds one op per line, appended
// and fdatasync'd synchronously (so an op is on disk before the event
// hook that produced it returns, whatever opencode does next); acked
// holds the byte offset of the prefix the vat has acknowledged. Acking
// everything truncates the file, so it stays small. Re-sending a line
// after a crash is harmless: op ids are content-derived, so the vat
// answers "duplicate".
import fs from "node:fs";
import path from "node:path";

/** @typedef {{opId: string, kind: string, key: string, body: string}} OutOp */

/** One session's outbox directory: ops.jsonl, acked, share.json. */
export class SessionOutbox {
  /**
   * Opens (creating) the outbox in dir, dropping a torn last line that a
   * crash mid-write left (it was never durable, so its hook never returned).
   * @param {string} dir
   */
  constructor(dir) {
    this.dir = dir;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.opsPath = path.join(dir, "ops.jsonl");
    this.ackedPath = path.join(dir, "acked");
    this.fd = fs.openSync(this.opsPath, "a+", 0o600);
    this.size = fs.fstatSync(this.fd).size;
    this.repairTail();
    this.acked = this.readAcked();
    /** @type {Map<string, string>} kind/key → the last op id enqueued */
    this.last = new Map();
  }

  /** Truncates the file after its last newline. */
  repairTail() {
    if (this.size === 0) return;
    const buf = fs.readFileSync(this.opsPath);
    const end = buf.lastIndexOf(10) + 1;
    if (end !== buf.length) {
      fs.ftruncateSync(this.fd, end);
      fs.fsyncSync(this.fd);
    }
    this.size = end;
  }

  /** @returns {number} the acknowledged offset, 0 when unknown or past the end */
  readAcked() {
    let n = 0;
    try {
      n = Number(fs.readFileSync(this.ackedPath, "utf8").trim());
    } catch {
      return 0;
    }
    return Number.isSafeInteger(n) && n >= 0 && n <= this.size ? n : 0;
  }

  /**
   * Appends op durably (synchronously: written and fdatasync'd when this
   * returns). An op equal to the last one enqueued for its kind and key is
   * skipped. Returns whether it was written.
   * @param {OutOp} op
   */
  enqueue(op) {
    const k = op.kind + "\u0000" + op.key;
    if (this.last.get(k) === op.opId) return false;
    const line = Buffer.from(JSON.stringify(op) + "\n");
    let off = 0;
    while (off < line.length) off += fs.writeSync(this.fd, line, off);
    fs.fdatasyncSync(this.fd);
    this.size += line.length;
    this.last.set(k, op.opId);
    return true;
  }

  /**
   * Whether this process has enqueued an op for kind and key.
   * @param {string} kind @param {string} key
   */
  seen(kind, key) {
    return this.last.has(kind + "\u0000" + key);
  }

  /** Whether ops wait to be sent. */
  hasPending() {
    return this.acked < this.size;
  }

  /**
   * Returns the unsent ops from the acknowledged offset on, at most maxOps
   * of them and about maxBytes of bodies, with the offset just after them.
   * @param {number} maxOps
   * @param {number} maxBytes
   * @returns {{ops: OutOp[], end: number}}
   */
  pending(maxOps, maxBytes) {
    const len = this.size - this.acked;
    const buf = Buffer.alloc(len);
    let got = 0;
    while (got < len) {
      const n = fs.readSync(this.fd, buf, got, len - got, this.acked + got);
      if (n === 0) break;
      got += n;
    }
    /** @type {OutOp[]} */
    const ops = [];
    let pos = 0;
    let bytes = 0;
    while (pos < got && ops.length < maxOps) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) break;
      const op = JSON.parse(buf.subarray(pos, nl).toString("utf8"));
      if (ops.length > 0 && bytes + op.body.length > maxBytes) break;
      bytes += op.body.length;
      ops.push(op);
      pos = nl + 1;
    }
    return { ops, end: this.acked + pos };
  }

  /**
   * Records that everything before end is acknowledged; when that is the
   * whole file, empties it (acked is made 0 durably first, so a crash in
   * between re-sends duplicates rather than skipping ops).
   * @param {number} end
   */
  ack(end) {
    if (end >= this.size) {
      writeDurable(this.ackedPath, "0\n");
      fs.ftruncateSync(this.fd, 0);
      fs.fsyncSync(this.fd);
      this.size = 0;
      this.acked = 0;
      return;
    }
    this.acked = end;
    writeDurable(this.ackedPath, `${end}\n`);
  }

  /** @returns {any} share.json's content, or null when there is none */
  readShare() {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, "share.json"), "utf8"));
    } catch {
      return null;
    }
  }

  /** @param {any} share the share's id, owner token and link */
  writeShare(share) {
    writeDurable(path.join(this.dir, "share.json"), JSON.stringify(share, null, 2) + "\n");
  }

  /** Closes the file. */
  close() {
    fs.closeSync(this.fd);
  }
}

/**
 * Replaces file with text atomically and durably (temp file, fsync,
 * rename), mode 0600.
 * @param {string} file
 * @param {string} text
 */
export function writeDurable(file, text) {
  const tmp = file + ".tmp";
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

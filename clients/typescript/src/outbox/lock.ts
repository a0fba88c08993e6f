// One writer at a time: an outbox holds "<path>.lock" while it is open.
// The lock file names its holder (holder.ts: pid, boot id, start time, and
// a random nonce). It is written whole to a temporary file and linked into
// place, so only one opener wins and nobody ever reads it half written. A
// lock whose holder is gone (crashed, SIGKILLed, the machine rebooted, its
// pid reused since) or that names no holder is stale and is broken, so a
// holder that is gone never leaves the outbox stuck. Needs no native module.
//
// Every step is a short synchronous system call on a small file (no
// fsync: after a power loss the boot id differs, so the lock is stale
// whatever the disk kept); acquire waits between tries on a timer,
// acquireSync by blocking the thread.

import fs from "node:fs";
import { randomBytes } from "node:crypto";
import { SharevatError } from "./errors.js";
import { alive, format, parse, self } from "./holder.js";

/** A held lock. */
export interface Lock {
  release(): Promise<void>;
}

/**
 * Takes the lock of the outbox at path, waiting up to timeoutMs while
 * another live holder has it; then fails "unavailable: … is in use".
 */
export async function acquire(path: string, timeoutMs: number): Promise<Lock> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const got = tryTake(path);
    if (typeof got !== "string") return got;
    if (Date.now() >= deadline) throw inUse(path, got);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * acquire, synchronously (for Outbox.openSync): waits by blocking the
 * thread (Atomics.wait) while another live holder has the lock.
 */
export function acquireSync(path: string, timeoutMs: number): Lock {
  const deadline = Date.now() + timeoutMs;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const got = tryTake(path);
    if (typeof got !== "string") return got;
    if (Date.now() >= deadline) throw inUse(path, got);
    Atomics.wait(nap, 0, 0, wait);
  }
}

/** Takes the lock if it is free or stale; else returns the live holder's lock line. */
function tryTake(path: string): Lock | string {
  const lockPath = path + ".lock";
  const mine = format(self(randomBytes(12).toString("hex")));
  for (;;) {
    if (create(lockPath, mine)) return { release: async () => release(lockPath, mine) };
    const holder = readOrEmpty(lockPath);
    if (alive(holder)) return holder;
    breakStale(lockPath, holder);
  }
}

function inUse(path: string, holder: string): SharevatError {
  const pid = parse(holder)?.pid ?? "another process";
  return new SharevatError("unavailable", `the outbox file ${path} is in use (by pid ${pid}); only one process may open it at a time`);
}

/** Puts the lock line content at lockPath unless a lock is there: written whole aside, then linked (atomic, fails if it exists). */
function create(lockPath: string, content: string): boolean {
  const tmp = `${lockPath}.${randomBytes(6).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(tmp, lockPath);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function readOrEmpty(p: string): string {
  try {
    return fs.readFileSync(p, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw e;
  }
}

/**
 * Breaks the stale lock holding content: moves it aside under a unique
 * name and deletes it, unless what was moved is not that lock (another
 * opener broke it and took a fresh one meanwhile), which is put back.
 */
function breakStale(lockPath: string, content: string): void {
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  if (readOrEmpty(aside) !== content) {
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // another opener holds a fresh lock: leave it
    }
  }
  fs.rmSync(aside, { force: true });
}

function release(lockPath: string, mine: string): void {
  if (readOrEmpty(lockPath) === mine) fs.rmSync(lockPath, { force: true });
}

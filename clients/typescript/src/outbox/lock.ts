// One writer at a time: an outbox holds "<path>.lock" while it is open.
// The lock file holds the holder's pid and a random nonce. It is created
// with O_EXCL, so only one opener wins; a lock whose holder is gone (its
// pid is dead: a crash, SIGKILL) is stale and is broken, so a crashed
// holder never leaves the outbox stuck. Needs no native module.

import fs, { promises as fsp, constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { SharevatError } from "./errors.js";

/** A held lock. */
export interface Lock {
  release(): Promise<void>;
}

/**
 * Takes the lock of the outbox at path, waiting up to timeoutMs while
 * another live holder has it; then fails "unavailable: … is in use".
 */
export async function acquire(path: string, timeoutMs: number): Promise<Lock> {
  const lockPath = path + ".lock";
  const mine = `${process.pid} ${randomBytes(12).toString("hex")}\n`;
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    if (await tryCreate(lockPath, mine)) return { release: () => release(lockPath, mine) };
    const holder = await readOrEmpty(lockPath);
    if (holder !== "" && !alive(holder)) {
      await breakStale(lockPath, holder);
      continue;
    }
    if (Date.now() >= deadline) throw inUse(path, holder);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * acquire, synchronously (for Outbox.openSync): waits by blocking the
 * thread (Atomics.wait) while another live holder has the lock.
 */
export function acquireSync(path: string, timeoutMs: number): Lock {
  const lockPath = path + ".lock";
  const mine = `${process.pid} ${randomBytes(12).toString("hex")}\n`;
  const deadline = Date.now() + timeoutMs;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    if (tryCreateSync(lockPath, mine)) return { release: () => release(lockPath, mine) };
    const holder = readOrEmptySync(lockPath);
    if (holder !== "" && !alive(holder)) {
      breakStaleSync(lockPath, holder);
      continue;
    }
    if (Date.now() >= deadline) throw inUse(path, holder);
    Atomics.wait(nap, 0, 0, wait);
  }
}

function inUse(path: string, holder: string): SharevatError {
  const pid = holder.split(" ")[0] || "another process";
  return new SharevatError("unavailable", `the outbox file ${path} is in use (by pid ${pid}); only one process may open it at a time`);
}

function tryCreateSync(lockPath: string, content: string): boolean {
  let fd;
  try {
    fd = fs.openSync(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readOrEmptySync(p: string): string {
  try {
    return fs.readFileSync(p, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw e;
  }
}

/** breakStale, synchronously. */
function breakStaleSync(lockPath: string, content: string): void {
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  if (readOrEmptySync(aside) !== content) {
    try {
      fs.linkSync(aside, lockPath);
    } catch {
      // another opener holds a fresh lock: leave it
    }
  }
  fs.rmSync(aside, { force: true });
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  let fh;
  try {
    fh = await fsp.open(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
}

async function readOrEmpty(p: string): Promise<string> {
  try {
    return await fsp.readFile(p, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw e;
  }
}

/** Whether the holder named in content may still hold it: its pid is alive (or content is half written). */
function alive(content: string): boolean {
  if (!content.endsWith("\n")) return true; // being written: its writer is alive
  const pid = Number(content.split(" ")[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Breaks the stale lock holding content: moves it aside under a unique
 * name and deletes it, unless what was moved is not that lock (another
 * opener broke it and took a fresh one meanwhile), which is put back.
 */
async function breakStale(lockPath: string, content: string): Promise<void> {
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    await fsp.rename(lockPath, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  if ((await readOrEmpty(aside)) !== content) {
    await fsp.link(aside, lockPath).catch(() => {});
  }
  await fsp.unlink(aside).catch(() => {});
}

async function release(lockPath: string, mine: string): Promise<void> {
  if ((await readOrEmpty(lockPath)) === mine) await fsp.unlink(lockPath).catch(() => {});
}

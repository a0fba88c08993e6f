// Who holds an outbox's lock, and whether that process is still there.
//
// Node has no flock (nodejs/node#122, #49256: declined) and Bun 1.3 has
// none either, so the lock cannot be one the kernel drops with its holder
// without a native module. Instead the lock file names its holder by what
// no other process can share with it: the pid, the boot id
// (/proc/sys/kernel/random/boot_id) and the process's start time in clock
// ticks since boot (field 22 of /proc/<pid>/stat). A holder is alive only
// while a process with that pid and that start time runs in this boot: a
// reboot changes the boot id, and a reused pid (another program, or a
// container's PID 1 restarted as PID 1) has a later start time. Where
// /proc is missing (macOS, Windows) the pid alone is checked, as before.
//
// The lock line: "<pid> <nonce> <boot id> <start time>\n", "-" for what
// this system has none of; the first two fields are those of the earlier
// format ("<pid> <nonce>\n"), which is still read.

import fs from "node:fs";

/** The holder a lock file names. */
export interface Holder {
  pid: number;
  nonce: string;
  /** The boot id, or "" where there is none to read. */
  boot: string;
  /** The start time in clock ticks since boot, or "" likewise. */
  start: string;
  /** Whether the line is of the earlier format (pid and nonce only). */
  earlier?: boolean;
}

/** This process as a holder, with a fresh nonce. */
export function self(nonce: string): Holder {
  return { pid: process.pid, nonce, boot: bootId(), start: startTime(process.pid) ?? "" };
}

/** The lock line of h. */
export function format(h: Holder): string {
  return [h.pid, h.nonce, h.boot || "-", h.start || "-"].join(" ") + "\n";
}

/** The holder a lock file's content names, or undefined when it names none (empty, cut short, not a lock line). */
export function parse(content: string): Holder | undefined {
  if (!content.endsWith("\n")) return undefined;
  const fields = content.slice(0, -1).split(" ");
  const [pid, nonce, boot = "-", start = "-"] = fields;
  const n = Number(pid);
  if (!Number.isSafeInteger(n) || n <= 0 || !nonce || (fields.length !== 2 && fields.length !== 4)) return undefined;
  const some = (v: string) => (v === "-" ? "" : v);
  return { pid: n, nonce, boot: some(boot), start: some(start), earlier: fields.length === 2 };
}

/**
 * Whether the holder content names may still hold its lock. A content
 * that names no holder is a lock its writer never finished (the lock is
 * put in place whole, so only a crash of the machine leaves one) and is
 * stale.
 */
export function alive(content: string): boolean {
  const h = parse(content);
  if (!h) return false;
  if (h.earlier) return h.pid !== process.pid && pidAlive(h.pid); // never this process's: it writes the new format
  const boot = bootId();
  if (h.boot && boot && h.boot !== boot) return false;
  if (h.start && boot) return startTime(h.pid) === h.start;
  return pidAlive(h.pid); // no /proc here: the pid alone
}

/** This machine's boot id, or "" where it has none to read. */
function bootId(): string {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * The start time of process pid in clock ticks since boot, or undefined
 * when no such process runs (none, or a zombie: it has exited) or /proc is
 * missing.
 */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; field 22 is the 20th after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[0] === "Z" || fields[0] === "X" ? undefined : fields[19];
}

/** Whether a process with pid exists (signal 0). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

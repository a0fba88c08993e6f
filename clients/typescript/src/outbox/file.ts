// The file backend: one append-only file of frames, each an 8-byte header
// (payload length, CRC-32C of the payload; big-endian) and the payload
// (UTF-8 JSON). Plain node:fs, so it needs no native compilation and runs
// on Node >= 20 and Bun.
//
// Durability: append writes the frames and fsyncs the file before it
// resolves. Every write is a synchronous system call (write, fsync), so
// appendSync (Outbox.enqueueSync) and the asynchronous calls never
// interleave in the file; an fsync holds the event loop for its duration. A new file is written whole as
// "<path>.new", synced, renamed into place, and its directory synced; a
// compaction does the same through "<path>.compact". So a crash leaves at
// the path either nothing or a file with a header, and the old file or the
// new one whole.
//
// Damage: only the end of the file can be torn by a crash (an append that
// never resolved): a last frame cut short, or zeros a power loss or a
// preallocation left after the last good frame, are cut at open (the file
// is truncated to the good frames before them). Anything else that fails
// (a changed byte even in the last frame, a frame with data after it, an
// empty file, one without the header) is damage: the open is refused
// naming the file and the offset, and the file is left as it is. scan.ts
// decides which is which, by the Go write-ahead log's rules.

import fs, { promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { crc32c } from "./crc32c.js";
import { HDR, parse } from "./scan.js";
import type { Storage } from "./storage.js";

const enc = new TextEncoder();

/** Encodes frames as they are stored. */
export function encodeFrames(frames: string[]): Uint8Array {
  const parts = frames.map((f) => enc.encode(f));
  const out = new Uint8Array(parts.reduce((n, p) => n + HDR + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    view.setUint32(at, p.length);
    view.setUint32(at + 4, crc32c(p));
    out.set(p, at + HDR);
    at += HDR + p.length;
  }
  return out;
}

/** The outbox in one append-only file of checksummed frames. */
export class FileStorage implements Storage {
  readonly kind = "file";
  private fd: number | undefined;
  private end = 0;

  constructor(readonly path: string) {}

  async load(first: string): Promise<string[]> {
    return this.loadSync(first);
  }

  /** load, synchronously (for Outbox.openSync). */
  loadSync(first: string): string[] {
    fs.rmSync(this.path + ".compact", { force: true });
    let fd: number;
    try {
      fd = fs.openSync(this.path, "r+");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      writeWhole(this.path, this.path + ".new", [first]);
      fd = fs.openSync(this.path, "r+");
    }
    this.fd = fd;
    const data = new Uint8Array(fs.readFileSync(fd));
    const { frames, end } = parse(this.path, data);
    if (end < data.length) {
      fs.ftruncateSync(fd, end); // a torn tail: an append that never resolved, or zeros
      fs.fsyncSync(fd);
    }
    this.end = end;
    return frames;
  }

  async append(frames: string[]): Promise<void> {
    this.appendSync(frames);
  }

  /**
   * append, synchronously: written and fsync'd when it returns. Every write
   * of this backend is synchronous, so appendSync and the asynchronous
   * calls never interleave in the file.
   */
  appendSync(frames: string[]): void {
    const fd = this.handle();
    const buf = encodeFrames(frames);
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done, this.end + done);
    fs.fsyncSync(fd);
    this.end += buf.length;
  }

  async replace(frames: string[]): Promise<void> {
    const old = this.handle();
    const size = writeWhole(this.path, this.path + ".compact", frames);
    this.fd = fs.openSync(this.path, "r+");
    this.end = size;
    fs.closeSync(old);
  }

  size(): number {
    return this.end;
  }

  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) fs.closeSync(fd);
  }

  private handle(): number {
    if (this.fd === undefined) throw new Error(`the outbox file ${this.path} is closed`);
    return this.fd;
  }
}

/** Writes frames to tmp, syncs it, renames it to path and syncs the directory; returns its size. */
function writeWhole(path: string, tmp: string, frames: string[]): number {
  const buf = encodeFrames(frames);
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    let done = 0;
    while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
  syncDirSync(dirname(path));
  return buf.length;
}

/** syncDir, synchronously. */
function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL") throw e;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** fsyncs a directory, so a create or rename in it is durable (a no-op where directories cannot be synced). */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await fsp.open(dir, "r");
    await fh.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL") throw e;
  } finally {
    await fh?.close();
  }
}

// The small interface every outbox storage backend implements: an ordered
// list of frames (JSON text) that survives crashes. The outbox holds the
// backend's lock (lock.ts) while it is open; the backend only stores.

import { SharevatError } from "../errors.js";

/**
 * Durable, ordered frames. `append` and `replace` resolve only once the
 * frames are on disk (fsync'd); a crash leaves either the old frames or the
 * new ones, never a mix. `load` throws a {@link DamagedError} for a file that
 * is not whole.
 */
export interface Storage {
  /** Which backend: "file", "bun:sqlite" or "node:sqlite". */
  readonly kind: string;
  /** The file it stores in. */
  readonly path: string;
  /** Opens (creating with `first` as its only frame when missing) and returns every frame, in order. */
  load(first: string): Promise<string[]>;
  /** Adds frames at the end, durably. */
  append(frames: string[]): Promise<void>;
  /** Replaces every frame with frames, atomically and durably (compaction). */
  replace(frames: string[]): Promise<void>;
  /** Bytes the frames take on disk (to decide when to compact). */
  size(): number;
  /** Closes the file. */
  close(): Promise<void>;
  /** load, synchronously; only backends that support Outbox.openSync have it (the file backend). */
  loadSync?(first: string): string[];
  /** append, synchronously (durable when it returns); only backends that support Outbox.enqueueSync have it (the file backend). */
  appendSync?(frames: string[]): void;
}

/** The error for an outbox file that is not whole; its message names the file. */
export class DamagedError extends SharevatError {
  constructor(path: string, why: string) {
    super("corrupt", `the outbox file ${path} is damaged: ${why}; restore it from a backup or move it away`);
    this.name = "DamagedError";
  }
}

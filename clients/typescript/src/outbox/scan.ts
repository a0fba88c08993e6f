// Reading the file backend's frames, and telling a torn tail from damage.
// The rules are the Go write-ahead log's (store/bolt/wal/tail.go): a bad
// frame is a torn tail only when nothing written follows it.
//
// A torn tail is only ever the end of what was written and never synced
// (an append whose promise never resolved): a frame the file ends inside
// (a write a crash cut short), or bytes a power loss left as zeros from a
// sector boundary to the end of the file, or zeros after the last good
// frame (a preallocated file, or a size the file system extended without
// the data). Everything else is damage, refused by name: a good frame
// after the bad one (the file went on after it), a last frame that would
// be whole with the length the file gives it (its length field changed),
// and a whole last frame that fails its checksum with no zeros to explain
// it (a changed byte, not a lost write). Dropping any of those would drop
// ops whose enqueue had resolved.

import { crc32c } from "./crc32c.js";
import { DamagedError } from "./storage.js";

/** The bytes before each frame's payload: its length and its CRC-32C (big-endian). */
export const HDR = 8;

/** The granularity of a write a power loss can lose: what was not written reads back as zeros from a multiple of it. */
const SECTOR = 512;

const dec = new TextDecoder("utf-8", { fatal: true });

/** Every frame's JSON starts with these bytes (frames.ts: the "t" field comes first). */
const START = new TextEncoder().encode('{"t":"');

/**
 * Reads the frames of the outbox file at path, whose content is data.
 * Returns them and where the last good one ends: a torn tail after it is
 * for the caller to cut. Throws a DamagedError naming the file and the
 * offset of the first bad frame for anything that is not a torn tail.
 */
export function parse(path: string, data: Uint8Array): { frames: string[]; end: number } {
  if (data.length === 0) throw new DamagedError(path, "it is empty (0 bytes)");
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const frames: string[] = [];
  let at = 0;
  while (at < data.length) {
    const text = goodFrame(view, data, at);
    if (text === undefined) {
      const why = frames.length === 0 ? "the header frame is not whole" : tailDamage(view, data, at);
      if (why === "") break;
      throw new DamagedError(path, `frame ${frames.length + 1} at byte ${at}: ${why}`);
    }
    frames.push(text);
    at += HDR + view.getUint32(at);
  }
  if (!frames[0]?.startsWith('{"t":"hdr"')) throw new DamagedError(path, "it does not start with the outbox header");
  return { frames, end: at };
}

/** The payload of the frame at `at` when it is whole, non-empty, matches its checksum and is UTF-8 JSON; else undefined. */
function goodFrame(view: DataView, data: Uint8Array, at: number): string | undefined {
  if (data.length - at < HDR) return undefined;
  const len = view.getUint32(at);
  if (len < START.length || len > data.length - at - HDR) return undefined;
  const payload = data.subarray(at + HDR, at + HDR + len);
  if (!startsFrame(payload) || crc32c(payload) !== view.getUint32(at + 4)) return undefined;
  try {
    return dec.decode(payload);
  } catch {
    return undefined;
  }
}

/**
 * Decides what stops the file at `at`, where goodFrame found none: "" for
 * a torn tail, otherwise why it is damage.
 */
function tailDamage(view: DataView, data: Uint8Array, at: number): string {
  const rest = data.subarray(at);
  if (allZero(rest)) return "";
  const next = nextFrame(view, data, at + 1);
  if (next >= 0) return `a good frame follows at byte ${next}`;
  if (rest.length < HDR) return ""; // a header cut short
  const len = view.getUint32(at);
  if (len === 0 || len > rest.length - HDR) {
    if (wholeAsLast(view, rest, at)) return `the length field (${len}) of the last frame is damaged: the frame is whole`;
    return ""; // a frame cut short
  }
  const payload = rest.subarray(HDR, HDR + len);
  if (crc32c(payload) === view.getUint32(at + 4)) return "a frame is not a UTF-8 JSON frame";
  if (zeroedEnd(data, at + HDR + len)) return ""; // a write cut short or lost, zeros after it
  return "a whole frame fails its checksum";
}

/**
 * Whether the frame of data that ends at frameEnd is explained by zeros
 * at the end of the file: zeros from inside the frame to the end of a file
 * that goes on past the frame (a write cut short in a zero-filled file),
 * or zeros from a sector boundary inside the frame to its end (a write a
 * power loss lost).
 */
function zeroedEnd(data: Uint8Array, frameEnd: number): boolean {
  let z = data.length;
  while (z > 0 && data[z - 1] === 0) z--;
  if (z >= frameEnd) return false;
  if (frameEnd < data.length) return true;
  return Math.ceil(z / SECTOR) * SECTOR < frameEnd;
}

/** The offset of the first good frame at or after from, or -1: the file went on after a bad frame. */
function nextFrame(view: DataView, data: Uint8Array, from: number): number {
  for (let at = from; at + HDR + START.length <= data.length; at++) {
    if (data[at + HDR] === START[0] && goodFrame(view, data, at) !== undefined) return at;
  }
  return -1;
}

/** Whether rest, the file from at on, is one good frame when its length field is taken to be the length rest gives it. */
function wholeAsLast(view: DataView, rest: Uint8Array, at: number): boolean {
  if (rest.length <= HDR) return false;
  return crc32c(rest.subarray(HDR)) === view.getUint32(at + 4);
}

/** Whether payload starts as every frame's JSON does. */
function startsFrame(payload: Uint8Array): boolean {
  return START.every((b, i) => payload[i] === b);
}

/** Whether b holds only zero bytes. */
function allZero(b: Uint8Array): boolean {
  return b.every((c) => c === 0);
}

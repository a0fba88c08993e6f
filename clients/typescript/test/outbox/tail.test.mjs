// The end of the outbox file (issue 32, bug 6), by the Go write-ahead
// log's rules (store/bolt/wal/tail_test.go): a changed byte anywhere, even
// in the last frame, is refused naming the file and the damaged frame's
// offset, and never taken for a torn tail that drops ops whose enqueue
// resolved; what a crash leaves at the end (a frame cut short, zeros after
// the last good frame, the end zeroed from a sector boundary) is cut, and
// every frame before it kept. No server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Outbox, FileStorage } from "../../dist/outbox/index.js";
import { tempDir, ev } from "./vat.mjs";

/** An event op whose body is n bytes of text, none of them zero. */
const sized = (opId, n) => ({ opId, kind: "event", body: { pad: "x".repeat(n) } });

/**
 * Writes an outbox whose frames have several sizes (some crossing 512-byte
 * sectors), the last an enqueue of 10 ops; every enqueue resolved. Returns
 * its path, its bytes, and the offset just past each frame.
 */
async function mustLog() {
  const path = join(tempDir("tail"), "ob");
  const ob = await Outbox.open(path);
  for (const [i, n] of [120, 700, 40, 1200, 5, 600].entries()) await ob.enqueue([sized(`s${i}`, n)]);
  await ob.enqueue(Array.from({ length: 10 }, (_, i) => ev(`last-${i}`, i)));
  await ob.close();
  const orig = readFileSync(path);
  const ends = [];
  for (let at = 0; at < orig.length; ) ends.push((at += 8 + orig.readUInt32BE(at)));
  assert.equal(ends.length, 8, "a header and 7 enqueues");
  assert.notEqual((orig.length - 1) % 512, 0, "the last byte does not start a sector");
  return { path, orig, ends, lastStart: ends[ends.length - 2] };
}

/** How many frames end at or before off. */
const wholeBefore = (ends, off) => ends.filter((e) => e <= off).length;

/** Loads path after writing b there: the frames, or the error. */
function load(path, b) {
  writeFileSync(path, b);
  const s = new FileStorage(path);
  try {
    return { frames: s.loadSync("unused") };
  } catch (err) {
    return { err };
  } finally {
    void s.close();
  }
}

/** Every offset from `from` on, and every step-th before it: the end of the file byte by byte, the rest sampled. */
function* offsets(from, to, step) {
  for (let off = 0; off < to; off += off >= from ? 1 : step) yield off;
}

test("[file] a byte changed anywhere, four ways, is refused naming the file and the damaged frame, never cut as a torn tail", async () => {
  const { path, orig, ends, lastStart } = await mustLog();
  const changes = [(c) => c ^ 0x01, (c) => c ^ 0x80, () => 0, () => 0xff];
  let refused = 0;
  for (const off of offsets(lastStart - 16, orig.length, 7)) {
    for (const [k, change] of changes.entries()) {
      const b = Buffer.from(orig);
      if ((b[off] = change(b[off])) === orig[off]) continue;
      const { err } = load(path, b);
      const frame = wholeBefore(ends, off);
      const start = frame === 0 ? 0 : ends[frame - 1];
      assert.equal(err?.code, "corrupt", `offset ${off} change ${k}: want corrupt, got ${err ? err.message : "it opened"}`);
      assert.ok(err.message.includes(`the outbox file ${path} is damaged: `), err.message);
      if (frame > 0) assert.match(err.message, new RegExp(`: frame ${frame + 1} at byte ${start}: `), `offset ${off}`);
      assert.deepEqual(readFileSync(path), b, `offset ${off}: a refused file is left as it is`);
      refused++;
    }
  }
  assert.ok(refused > 3 * (orig.length - lastStart), `${refused} changes refused`);
});

test("[file] a flipped byte in the last frame's payload or checksum is refused: its 10 acknowledged ops are not dropped", async () => {
  const { path, orig, lastStart } = await mustLog();
  for (const [what, off] of [["payload", orig.length - 20], ["checksum", lastStart + 5]]) {
    const b = Buffer.from(orig);
    b[off] ^= 0x04;
    writeFileSync(path, b);
    const err = await Outbox.open(path).then((ob) => { void ob.close(); assert.fail(`opened with a changed ${what} byte`); }, (e) => e);
    assert.equal(err.code, "corrupt", err.message);
    assert.equal(err.message, `corrupt: the outbox file ${path} is damaged: frame 8 at byte ${lastStart}: a whole frame fails its checksum; restore it from a backup or move it away`);
    assert.deepEqual(readFileSync(path), b, `${what}: left as it is`);
  }
});

test("[file] 4 KiB of zeros after the last frame are cut; every op is kept and the next append follows the last frame", async () => {
  const { path, orig } = await mustLog();
  writeFileSync(path, Buffer.concat([orig, Buffer.alloc(4096)]));
  const ob = await Outbox.open(path);
  assert.equal(ob.status().pending, 16);
  assert.equal(ob.result("last-9").state, "pending");
  assert.equal(readFileSync(path).length, orig.length, "the zeros were cut");
  await ob.enqueue([ev("after", 1)]);
  await ob.close();
  const again = await Outbox.open(path);
  assert.deepEqual(again.state.queue().slice(-2).map((r) => r.op.id), ["last-9", "after"]);
  await again.close();
});

test("[file] what a crash leaves at the end is a torn tail: cut at every offset, zero-filled after the cut, zeroed from a sector", async () => {
  const { path, orig, ends, lastStart } = await mustLog();
  const check = (b, whole, what) => {
    const { frames, err } = load(path, b);
    assert.equal(err, undefined, `${what}: ${err?.message}`);
    assert.equal(frames.length, whole, `${what}: the whole frames before the tear`);
    assert.equal(readFileSync(path).length, ends[whole - 1], `${what}: cut after the last whole frame`);
  };
  for (const cut of offsets(lastStart - 16, orig.length + 1, 13)) {
    if (cut < ends[0]) continue; // the header frame is written whole (a rename) or not at all
    check(orig.subarray(0, cut), wholeBefore(ends, cut), `cut at ${cut}`);
    check(Buffer.concat([orig.subarray(0, cut), Buffer.alloc(700)]), wholeBefore(ends, cut), `cut at ${cut}, zero-filled`);
    for (let z = Math.max(512, Math.floor((cut - 1200) / 512) * 512); z < cut; z += 512) {
      const b = Buffer.from(orig.subarray(0, cut));
      b.fill(0, z);
      check(b, wholeBefore(ends, z), `cut at ${cut}, zeroed from ${z}`);
    }
  }
});

test("[file] zeros in the middle with whole frames after them, or a changed byte before a cut, are damage", async () => {
  const { path, orig, ends } = await mustLog();
  const mid = Buffer.from(orig);
  mid.fill(0, 512, 1024);
  const err = load(path, mid).err;
  assert.equal(err?.code, "corrupt");
  assert.match(err.message, /: frame \d at byte \d+: a good frame follows at byte \d+; /);

  const half = Buffer.from(orig.subarray(0, Math.floor(orig.length / 2)));
  half[ends[1] + 20] ^= 1;
  assert.equal(load(path, half).err?.code, "corrupt", "cut in half, a byte changed before the cut");
});

// The outbox file itself: one writer at a time (a second opener waits,
// then says "in use", never "damaged"), a crashed holder's lock broken,
// damaged files refused naming them and left untouched, and a torn last
// append dropped. No server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { Outbox, builtinSqlite } from "../../dist/outbox/index.js";
import { tempDir, ev } from "./vat.mjs";

const storages = ["file", ...((await builtinSqlite()) ? ["sqlite"] : [])];

for (const storage of storages) {
  test(`[${storage}] a second opener waits for the holder, then says "in use", never "damaged"`, async () => {
    const path = join(tempDir(), "ob");
    const first = await Outbox.open(path, { storage });
    const err = await Outbox.open(path, { storage, lockTimeoutMs: 200 }).then(() => assert.fail("opened twice"), (e) => e);
    assert.equal(err.code, "unavailable");
    assert.match(err.message, /is in use/);
    assert.ok(err.message.includes(path));
    assert.doesNotMatch(err.message, /damaged/);
    const waiting = Outbox.open(path, { storage, lockTimeoutMs: 30_000 });
    await first.enqueue([ev("one", 1)]);
    await first.close();
    const second = await waiting;
    assert.equal(second.status().pending, 1);
    await second.close();
  });

  test(`[${storage}] the lock of a SIGKILLed holder does not keep the outbox stuck`, async () => {
    const path = join(tempDir(), "ob");
    const child = spawn(process.execPath, [new URL("./holder.mjs", import.meta.url).pathname, path, storage], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = await once(child.stdout, "data");
    assert.equal(String(line), "open\n");
    child.kill("SIGKILL");
    await once(child, "exit");
    assert.ok(existsSync(path + ".lock"), "the dead holder left its lock file");
    const ob = await Outbox.open(path, { storage, lockTimeoutMs: 200 });
    assert.equal(ob.result("held").state, "pending", "what the holder enqueued is there");
    await ob.close();
  });
}

test("[file] a damaged file is refused with a message naming it, and left as it is", async () => {
  const path = join(tempDir(), "ob");
  const ob = await Outbox.open(path);
  await ob.enqueue([ev("a", 1)]);
  await ob.enqueue([ev("b", 2)]);
  await ob.enqueue([ev("c", 3)]);
  await ob.close();
  const data = readFileSync(path);
  const at = data.indexOf('"b"');
  data[at + 1] = "B".charCodeAt(0); // a frame in the middle
  writeFileSync(path, data);
  const err = await Outbox.open(path).then(() => assert.fail("opened"), (e) => e);
  assert.equal(err.code, "corrupt");
  assert.ok(err.message.startsWith(`corrupt: the outbox file ${path} is damaged: frame 3 at byte `), err.message);
  assert.match(err.message, /: a good frame follows at byte \d+; restore it from a backup or move it away$/);
  assert.deepEqual(readFileSync(path), data, "left untouched");

  writeFileSync(path, "");
  const empty = await Outbox.open(path).then(() => assert.fail("opened"), (e) => e);
  assert.match(empty.message, /the outbox file .* is damaged: it is empty \(0 bytes\)/);
  assert.equal(readFileSync(path).length, 0);
});

test("[file] an append cut short by a crash (its enqueue never resolved) is dropped at open", async () => {
  const path = join(tempDir(), "ob");
  const ob = await Outbox.open(path);
  await ob.enqueue([ev("a", 1)]);
  await ob.enqueue([ev("b", 2)]);
  await ob.close();
  const whole = readFileSync(path);
  writeFileSync(path, whole.subarray(0, whole.length - 5));
  const again = await Outbox.open(path);
  assert.equal(again.result("a").state, "pending");
  assert.equal(again.result("b").state, "unknown");
  await again.enqueue([ev("c", 3)]);
  await again.close();
  const third = await Outbox.open(path);
  assert.deepEqual(third.state.queue().map((r) => r.op.id), ["a", "c"]);
  await third.close();
});

if (storages.includes("sqlite")) {
  test("[sqlite] a damaged file is refused with a message naming it", async () => {
    const path = join(tempDir(), "ob");
    writeFileSync(path, "this is not a database, it is damaged text".repeat(200));
    const err = await Outbox.open(path, { storage: "sqlite" }).then(() => assert.fail("opened"), (e) => e);
    assert.match(err.message, /^corrupt: the outbox file .* is damaged: /);
    assert.ok(err.message.includes(path));
  });
}

if (globalThis.Bun) {
  test("[bun:sqlite] a frame whose data no longer matches its checksum is refused naming the file, and left as it is", async () => {
    const { Database } = await import("bun:sqlite");
    const path = join(tempDir(), "ob");
    const ob = await Outbox.open(path, { storage: "sqlite" });
    await ob.enqueue([ev("a", 1)]);
    await ob.close();
    const db = new Database(path);
    db.exec(`UPDATE frames SET frame = replace(frame, '"a"', '"A"') WHERE frame LIKE '%"enq"%'`);
    const rows = () => db.prepare("SELECT n, crc, frame FROM frames ORDER BY n").all();
    const before = rows();
    const err = await Outbox.open(path, { storage: "sqlite" }).then(() => assert.fail("opened"), (e) => e);
    assert.equal(err.message, `corrupt: the outbox file ${path} is damaged: frame 2 fails its checksum; restore it from a backup or move it away`);
    assert.deepEqual(rows(), before, "left as it is");
    db.close();
  });
}

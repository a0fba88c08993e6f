// The synchronous face of the file outbox, for producers whose host does
// not await them (the opencode plugin's event hook): Outbox.openSync and
// enqueueSync store an op durably before they return, in order with the
// asynchronous enqueue, in the same file format, with the same checks;
// storages that cannot append synchronously refuse it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { Redeemer } from "../../dist/index.js";
import { Outbox, builtinSqlite } from "../../dist/outbox/index.js";
import { startVat, createShare, readLog, tempDir, ev } from "./vat.mjs";

let vat;
before(async () => { vat = await startVat(); });
after(async () => { await vat?.stop(); });

const fast = { minBackoffMs: 10, maxBackoffMs: 100 };

/** Runs syncproducer.mjs on path and waits for its SIGKILL. */
async function produce(path, count, mode) {
  const child = spawn(process.execPath, [new URL("./syncproducer.mjs", import.meta.url).pathname, path, String(count), mode], { stdio: ["ignore", "inherit", "inherit"] });
  const [code, signal] = await once(child, "exit");
  assert.equal(signal, "SIGKILL", `the producer exited ${code} instead of being killed`);
}

test("enqueueSync: every op is on disk when it returns, in order with async enqueues, even when the process is SIGKILLed in the same tick", async () => {
  const path = join(tempDir(), "ob");
  await produce(path, 40, "sync");
  const ob = await Outbox.open(path, fast);
  const want = [];
  for (let i = 0; i < 40; i++) {
    want.push(`sync-${i}`);
    if (i % 7 === 3) want.push(`async-${i}`);
  }
  assert.equal(ob.status().pending, want.length);
  assert.equal(ob.status().lastOpId, "sync-39");
  const share = await createShare(vat);
  await ob.flush(new Redeemer(vat.capnweb, share.token, fast));
  assert.deepEqual((await readLog(vat, share.token)).map((e) => e.opId), want);
  await ob.close();
});

test("contrast: the asynchronous enqueue, not awaited, loses what the same-tick SIGKILL cut off", async () => {
  const path = join(tempDir(), "ob");
  await produce(path, 40, "async");
  const ob = await Outbox.open(path, fast);
  assert.ok(ob.status().pending < 40 + 6, `all ${ob.status().pending} ops survived: the contrast shows nothing`);
  await ob.close();
});

test("enqueueSync keeps enqueue's checks and de-duplication, and openSync the lock", async () => {
  const path = join(tempDir(), "ob");
  const ob = Outbox.openSync(path, fast);
  assert.deepEqual(ob.enqueueSync([ev("a", 1), ev("a", 1)]), ["a", "a"]);
  assert.equal(ob.status().pending, 1, "an op id pending with the same content is kept once");
  assert.throws(() => ob.enqueueSync([ev("a", 2)]), (e) => e.code === "conflict");
  assert.throws(() => ob.enqueueSync([{ opId: "b", kind: "event", body: new TextEncoder().encode("{not json") }]), (e) => e.code === "invalid");
  assert.throws(() => ob.enqueueSync([{ opId: "x".repeat(200), kind: "event", body: 1 }]), (e) => e.code === "invalid");
  assert.equal(ob.status().pending, 1, "a refused op stores nothing");
  assert.throws(() => Outbox.openSync(path, { lockTimeoutMs: 50 }), (e) => e.code === "unavailable" && /is in use/.test(e.message));
  await ob.close();
  assert.throws(() => ob.enqueueSync([ev("c", 1)]), (e) => e.code === "unavailable");
  const again = Outbox.openSync(path);
  assert.equal(again.result("a").state, "pending");
  await again.close();
});

test("a storage without a synchronous append refuses openSync and enqueueSync", { skip: !(await builtinSqlite()) && "no built-in SQLite here" }, async () => {
  const path = join(tempDir(), "ob");
  assert.throws(() => Outbox.openSync(path, { storage: "sqlite" }), (e) => e.code === "invalid");
  const ob = await Outbox.open(path, { storage: "sqlite" });
  assert.throws(() => ob.enqueueSync([ev("a", 1)]), (e) => e.code === "invalid" && /synchronous/.test(e.message));
  await ob.close();
});

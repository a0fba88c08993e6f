// Exactly-once under crashes: producers enqueue and flush 20,000 ops
// through their outboxes while either the producer process or the vat is
// SIGKILLed 10 times at random points and restarted; the vat ends with
// every op exactly once, in each producer's order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startVat, createShare, readLog, tempDir } from "./vat.mjs";

const producerJS = new URL("./producer.mjs", import.meta.url).pathname;

/** Starts a producer; lines() counts its progress lines, exited resolves with its exit. */
function startProducer(vat, token, path, total, prefix, chunk) {
  const child = spawn(process.execPath, [producerJS, path, vat.capnweb, String(total), prefix, String(chunk)], {
    env: { ...process.env, SHAREVAT_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"],
  });
  const p = { child, progress: 0, done: false, err: "", waiters: [] };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (s) => {
    for (const line of s.split("\n").filter(Boolean)) {
      if (line === "done") p.done = true;
      else if (line.startsWith("dup ")) dups += Number(line.slice(4));
      else p.progress++;
    }
    p.waiters = p.waiters.filter((w) => !w());
  });
  child.stderr.on("data", (s) => { p.err += s; });
  p.exited = new Promise((r) => child.on("exit", (code, sig) => r({ code, sig })));
  p.exited.then(() => { p.waiters = p.waiters.filter((w) => !w(true)); });
  /** Resolves once the producer has reported k more progress lines (or exited). */
  p.advance = (k) => new Promise((resolve) => {
    const target = p.progress + k;
    const w = (exited) => (exited || p.progress >= target ? (resolve(), true) : false);
    if (!w()) p.waiters.push(w);
  });
  return p;
}

/** Ops acked duplicate across every producer of the running test: resends after a lost reply. */
let dups = 0;

const rnd = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Asserts that the log holds prefix-0 … prefix-(total-1) exactly once each, in order. */
function assertExactlyOnce(log, prefix, total) {
  const mine = log.filter((e) => e.opId.startsWith(prefix + "-")).map((e) => Number(e.opId.slice(prefix.length + 1)));
  const seen = new Map();
  for (const n of mine) seen.set(n, (seen.get(n) ?? 0) + 1);
  const dup = [...seen].filter(([, c]) => c > 1);
  assert.deepEqual(dup, [], `${prefix}: ops in the log more than once`);
  const missing = [];
  for (let i = 0; i < total; i++) if (!seen.has(i)) missing.push(i);
  assert.deepEqual(missing.slice(0, 10), [], `${prefix}: ${missing.length} ops missing`);
  for (let i = 1; i < mine.length; i++) assert.ok(mine[i] > mine[i - 1], `${prefix}: op ${mine[i]} after ${mine[i - 1]}`);
  assert.equal(mine.length, total);
}

test("exactly once: a producer of 20,000 ops SIGKILLed 10 times and restarted", { timeout: 900_000 }, async (t) => {
  dups = 0;
  const vat = await startVat();
  try {
    const share = await createShare(vat);
    const path = join(tempDir(), "producer.ob");
    const total = 20_000;
    let p = startProducer(vat, share.token, path, total, "kp", 200);
    for (let kill = 0; kill < 10; kill++) {
      await p.advance(rnd(1, 6));
      await pause(rnd(0, 40));
      assert.equal(p.done, false, `the producer finished before kill ${kill + 1}: make the run longer`);
      p.child.kill("SIGKILL");
      await p.exited;
      p = startProducer(vat, share.token, path, total, "kp", 200);
    }
    const end = await p.exited;
    assert.deepEqual(end, { code: 0, sig: null }, p.err);
    assertExactlyOnce(await readLog(vat, share.token), "kp", total);
    t.diagnostic(`${dups} ops were resent after a lost reply and acked duplicate`);
  } finally {
    await vat.stop();
  }
});

test("exactly once: two producers of 10,000 ops each while the vat is SIGKILLed 10 times and restarted", { timeout: 900_000 }, async (t) => {
  dups = 0;
  const dir = tempDir();
  let vat = await startVat({ data: join(dir, "data") });
  const listen = vat.listen;
  try {
    const share = await createShare(vat);
    const producers = ["va", "vb"].map((prefix) => startProducer(vat, share.token, join(dir, prefix + ".ob"), 10_000, prefix, 100));
    for (let kill = 0; kill < 10; kill++) {
      await Promise.race(producers.map((p) => p.advance(rnd(1, 5))));
      await pause(rnd(0, 40));
      assert.ok(producers.some((p) => !p.done), `the producers finished before kill ${kill + 1}: make the run longer`);
      await vat.kill();
      vat = await startVat({ data: join(dir, "data"), listen });
    }
    for (const p of producers) assert.deepEqual(await p.exited, { code: 0, sig: null }, p.err);
    const log = await readLog(vat, share.token);
    assertExactlyOnce(log, "va", 10_000);
    assertExactlyOnce(log, "vb", 10_000);
    assert.equal(log.length, 20_000);
    t.diagnostic(`${dups} ops were resent after a lost reply and acked duplicate`);
  } finally {
    await vat.stop();
  }
});

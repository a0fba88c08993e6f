// Interop with the Go client: a TypeScript outbox and the Go outbox (the
// CLI's `sharevat append`, which goes through client.Outbox) append to
// one share at the same time, and a TypeScript tail (a Cap'n Web
// subscription) and the Go tail (`sharevat tail`) see the same log.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { newWebSocketRpcSession } from "capnweb";
import { Redeemer } from "../../dist/index.js";
import { Outbox } from "../../dist/outbox/index.js";
import { bin, startVat, createShare, readLog, tempDir } from "./vat.mjs";

/** Runs `sharevat append --file` with the Go outbox in state; resolves with its stdout. */
function goAppend(vat, token, state, ops) {
  const file = join(state, `ops-${ops[0].op_id}.jsonl`);
  writeFileSync(file, ops.map((o) => JSON.stringify(o)).join("\n") + "\n");
  const env = { ...process.env, SHAREVAT_URL: vat.rpc, SHAREVAT_TOKEN: token, SHAREVAT_STATE: state };
  return new Promise((resolve, reject) => {
    execFile(bin, ["append", "--file", file, "--timeout", "60s"], { env }, (err, stdout, stderr) => (err ? reject(new Error(`sharevat append: ${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/** `sharevat tail --from 0` until it printed n entries: [[cursor, opId]]. */
function goTail(vat, token, n) {
  const env = { ...process.env, SHAREVAT_URL: vat.rpc, SHAREVAT_TOKEN: token };
  const child = spawn(bin, ["tail", "--from", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  const out = [];
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => (out.length < n ? reject(new Error(`sharevat tail exited ${code} after ${out.length} entries`)) : undefined));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const e = JSON.parse(line);
      out.push([e.cursor, e.op_id]);
      if (out.length === n) {
        child.kill("SIGTERM");
        resolve(out);
      }
    });
  });
}

/** A Cap'n Web subscription from cursor 0 until n entries: [[cursor, opId]]. */
async function tsTail(vat, token, n) {
  const vault = newWebSocketRpcSession(vat.capnweb);
  const out = [];
  let sub;
  try {
    await new Promise((resolve, reject) => {
      vault.restore(token).share.reader().subscribe(0, (ops, end) => {
        if (end) return reject(new Error(`subscription ended: ${end.code}`));
        for (const e of ops) out.push([e.cursor, e.opId]);
        if (out.length >= n) resolve();
      }).then((s) => { sub = s; }, reject);
    });
  } finally {
    sub?.[Symbol.dispose]();
    vault[Symbol.dispose]();
  }
  return out.slice(0, n);
}

test("a TS outbox and the Go outbox append to one share; the TS tail and the Go tail see the same log", { timeout: 300_000 }, async () => {
  const vat = await startVat();
  try {
    const share = await createShare(vat);
    const state = tempDir("gostate");
    const ob = await Outbox.open(join(tempDir(), "ts.ob"));
    const target = new Redeemer(vat.capnweb, share.token);
    const ts = async (from, n) => {
      await ob.enqueue(Array.from({ length: n }, (_, i) => ({ opId: `ts-${from + i}`, kind: "part", key: `k${(from + i) % 7}`, body: { from: "ts", n: from + i } })));
      await ob.flush(target);
    };
    const goOps = (from, n) => Array.from({ length: n }, (_, i) => ({ op_id: `go-${from + i}`, kind: "event", body: { from: "go", n: from + i } }));
    // Both at once, several rounds each, then one more of each in turn.
    await Promise.all([
      (async () => { for (let r = 0; r < 4; r++) await ts(r * 50, 50); })(),
      (async () => { for (let r = 0; r < 4; r++) await goAppend(vat, share.token, state, goOps(r * 50, 50)); })(),
    ]);
    await ts(200, 10);
    assert.match(await goAppend(vat, share.token, state, goOps(200, 10)), /applied 10, duplicate 0, rejected 0/);
    target.close();
    await ob.close();

    const total = 420;
    const log = (await readLog(vat, share.token)).map((e) => [e.cursor, e.opId]);
    assert.equal(log.length, total);
    for (const prefix of ["ts-", "go-"]) {
      const ns = log.filter(([, id]) => id.startsWith(prefix)).map(([, id]) => Number(id.slice(3)));
      assert.deepEqual(ns, Array.from({ length: 210 }, (_, i) => i), `${prefix} ops once each, in order`);
    }
    const [goSaw, tsSaw] = await Promise.all([goTail(vat, share.token, total), tsTail(vat, share.token, total)]);
    assert.deepEqual(tsSaw, log);
    assert.deepEqual(goSaw, log);
  } finally {
    await vat.stop();
  }
});

// The vat (the real binary, SHAREVAT_BIN) SIGKILLed in the middle of a
// flush, right after an ack, and restarted on the same address and data:
// the flush carries on by itself, and the share holds every op once, in
// enqueue order.
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { Flusher } from "../src/flusher.js";
import { itemToOp } from "../src/mapping.js";
import { readLogAt, scratch } from "./helpers.mjs";

const bin = process.env.SHAREVAT_BIN ?? "";

/** Starts `sharevat serve`; resolves with {base, child, exited} once it serves. */
async function serve(data, listen = "127.0.0.1:0") {
  const child = spawn(bin, ["serve", "--listen", listen, "--data", data], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = once(child, "exit");
  let log = "";
  child.stderr.setEncoding("utf8");
  for await (const chunk of child.stderr) {
    log += chunk;
    const m = /sharevat: serving on ws:\/\/([^\s/]+)\/rpc/.exec(log);
    if (m) return { base: `http://${m[1]}`, listen: m[1], child, exited };
  }
  throw new Error(`sharevat serve exited before serving:\n${log}`);
}

test("the vat SIGKILLed mid-flush and restarted: every op once, in order", { skip: !bin && "SHAREVAT_BIN is not set" }, async () => {
  const data = join(mkdtempSync(join(tmpdir(), "sharevat-ocplugin-vat-")), "data");
  let vat = await serve(data);
  const minted = JSON.parse(execFileSync(bin, ["opencode-token", "mint", "--server", vat.base.replace(/^http/, "ws") + "/rpc",
    "--token-file", join(data, "admin.token"), "--name", "kill", "--json"], { encoding: "utf8" }));
  const lines = [];
  let acks = 0;
  /** @type {Promise<void> | undefined} */
  let restarted;
  const f = new Flusher({
    url: vat.base, token: minted.token, dir: scratch(), log: (l) => lines.push(l), debounceMs: 0, keepAlive: true,
    outbox: {
      maxBatchOps: 20, minBackoffMs: 20, maxBackoffMs: 200,
      onAck: () => {
        if (++acks !== 3) return;
        const old = vat; // the third ack: SIGKILL the vat while batches remain
        old.child.kill("SIGKILL");
        restarted = old.exited.then(async () => { vat = await serve(data, old.listen); });
      },
    },
  });
  const sid = "ses_vatkill";
  const ops = [];
  for (let i = 0; i < 200; i++) ops.push(itemToOp("part", { id: `prt_${i}`, sessionID: sid, messageID: "msg_1", type: "text", text: `part ${i}` }, sid));
  f.outbox(sid).enqueueSync(ops.map((o) => ({ opId: o.opId, kind: o.kind, key: o.key, body: Buffer.from(o.body) })));
  await f.kick(sid);
  assert.equal(f.outbox(sid).status().pending, 0, lines.join("\n"));
  assert.ok(restarted, "the vat was killed mid-flush");
  await restarted;
  const log = await readLogAt(vat.base, f.readShare(sid).token);
  assert.deepEqual(log.map((e) => e.opId), ops.map((o) => o.opId), "every op once, in enqueue order");
  await f.close();
  vat.child.kill("SIGTERM");
  await vat.exited;
});

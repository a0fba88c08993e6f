// Malformed input over a raw WebSocket (the ws package, no capnweb): each
// case is answered with an abort message and a close (1008) of that
// connection only, while a capnweb session with a live subscription on
// the same server keeps working throughout. A feature the vat leaves out
// (remap) is refused for that call only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WebSocket } from "ws";
import { capnwebURL, connect, createShare, textOp, waitUntil, within } from "./helpers.mjs";

/** Opens a raw WebSocket to /capnweb that records the text it receives. */
async function raw() {
  const ws = new WebSocket(capnwebURL);
  /** @type {string[]} */
  const msgs = [];
  ws.on("message", (data) => msgs.push(String(data)));
  /** @type {Promise<{code: number, reason: string}>} */
  const closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  await within(new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); }), "the raw socket to open");
  return { ws, msgs, closed };
}

/** @param {number} depth */
function nested(depth) {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** @type {Record<string, (string | Buffer)[]>} */
const cases = {
  "invalid JSON": ["[\"push\", {not json"],
  "not an array": ['{"push": 1}'],
  "unknown message type": ['["frobnicate", 1]'],
  "pull of an absurd id": ['["pull", 4294967296]'],
  "pull of an unknown id": ['["pull", 7]'],
  "release of an unknown id": ['["release", 12345, 1]'],
  "push on an absurd import": ['["push", ["pipeline", 999999999, ["restore"], ["x"]]]'],
  "release of more references than held": ['["push", ["pipeline", 0, ["ping"], []]]', '["release", 1, 5]'],
  "nesting too deep": [`["push", ["pipeline", 0, ["ping"], [${nested(200)}]]]`],
  "a binary frame": [Buffer.from('["pull", 1]')],
};

test("malformed input closes only its own connection", async () => {
  const { owner } = await createShare("malformed");
  const good = connect();
  try {
    const { share, access } = await good.vault.restore(owner);
    const appender = share.appender();
    /** @type {number[]} */
    const seen = [];
    await share.reader().subscribe(0, (ops) => { seen.push(...ops.map((o) => o.cursor)); });

    let n = 0;
    for (const [what, frames] of Object.entries(cases)) {
      const { ws, msgs, closed } = await raw();
      for (const f of frames) ws.send(f);
      const { code } = await within(closed, `${what}: the close`);
      assert.equal(code, 1008, `${what}: close code (messages ${JSON.stringify(msgs)})`);
      const abort = msgs.map((m) => JSON.parse(m)).find((m) => Array.isArray(m) && m[0] === "abort");
      assert.ok(abort, `${what}: an abort message before the close, got ${JSON.stringify(msgs)}`);

      // The good session still works, its subscription included.
      n++;
      await good.vault.ping();
      const ack = await appender.append({ epoch: access.epoch, ops: [textOp(`after-${n}`, 0)] });
      assert.equal(ack.head, n, what);
      await waitUntil(() => seen.length === n, `${what}: the subscription's push`);
    }
    assert.deepEqual(seen, Array.from({ length: n }, (_, i) => i + 1));
  } finally {
    good.vault[Symbol.dispose]();
  }
});

test("an unimplemented expression (remap) is refused for that call only", async () => {
  const { ws, msgs, closed } = await raw();
  try {
    ws.send('["push", ["remap", 0, ["x"], [], [["pipeline", -1, ["y"]]]]]');
    ws.send('["pull", 1]');
    await waitUntil(() => msgs.length >= 1, "the answer to the remap");
    const [kind, id, err] = JSON.parse(msgs[0]);
    assert.deepEqual([kind, id], ["reject", 1], msgs[0]);
    assert.equal(err[0], "error");
    assert.match(JSON.stringify(err), /remap/, "the error names the feature");
    // The connection goes on: ping answers.
    ws.send('["push", ["pipeline", 0, ["ping"], []]]');
    ws.send('["pull", 2]');
    await waitUntil(() => msgs.length >= 2, "the ping's answer");
    assert.deepEqual(JSON.parse(msgs[1]).slice(0, 2), ["resolve", 2], msgs[1]);
  } finally {
    ws.close(1000);
    await within(closed, "the close");
  }
});

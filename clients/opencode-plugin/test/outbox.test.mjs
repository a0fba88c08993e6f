// The per-session file outbox: durable enqueue, torn tails, acks.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";
import { SessionOutbox } from "../src/outbox.js";
import { itemToOp } from "../src/mapping.js";
import { scratch } from "./helpers.mjs";

const op = (n) => itemToOp("message", { id: `msg_${n}`, n }, "ses_1");

test("an enqueued op is in the file when enqueue returns; a repeat is skipped", () => {
  const dir = path.join(scratch(), "ses_1");
  const ob = new SessionOutbox(dir);
  assert.equal(ob.enqueue(op(1)), true);
  assert.equal(ob.enqueue(op(1)), false);
  assert.equal(ob.enqueue(op(2)), true);
  const lines = fs.readFileSync(path.join(dir, "ops.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines, [op(1), op(2)]);
  ob.close();
});

test("a reopened outbox drops a torn last line and keeps the rest pending", () => {
  const dir = path.join(scratch(), "ses_1");
  const ob = new SessionOutbox(dir);
  ob.enqueue(op(1));
  ob.close();
  fs.appendFileSync(path.join(dir, "ops.jsonl"), '{"opId":"torn');
  const again = new SessionOutbox(dir);
  assert.deepEqual(again.pending(100, 1 << 20).ops, [op(1)]);
  again.enqueue(op(2));
  assert.deepEqual(again.pending(100, 1 << 20).ops, [op(1), op(2)]);
  again.close();
});

test("acks advance durably; acking everything empties the file", () => {
  const dir = path.join(scratch(), "ses_1");
  const ob = new SessionOutbox(dir);
  for (let i = 0; i < 5; i++) ob.enqueue(op(i));
  const first = ob.pending(2, 1 << 20);
  assert.deepEqual(first.ops, [op(0), op(1)]);
  ob.ack(first.end);
  ob.close();
  const re = new SessionOutbox(dir);
  const rest = re.pending(100, 1 << 20);
  assert.deepEqual(rest.ops, [op(2), op(3), op(4)]);
  re.ack(rest.end);
  assert.equal(fs.statSync(path.join(dir, "ops.jsonl")).size, 0);
  assert.equal(re.hasPending(), false);
  re.close();
});

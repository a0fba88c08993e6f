// A producer for the crash tests: enqueues ops <prefix>-0 … <prefix>-<total-1>
// into the outbox at argv[2] in chunks, flushing after each to the vat at
// argv[3] (token in SHAREVAT_TOKEN). After a restart it resumes after the
// last op id its outbox holds. Prints the next index after each flush and
// "done" at the end, and "dup N" for an ack answering N ops duplicate (a
// batch resent after its reply was lost).
import { Redeemer } from "../../dist/index.js";
import { Outbox } from "../../dist/outbox/index.js";

const [path, url, totalArg, prefix, chunkArg, storage = "file"] = process.argv.slice(2);
const total = Number(totalArg);
const chunk = Number(chunkArg);
const ob = await Outbox.open(path, {
  storage, lockTimeoutMs: 10_000, minBackoffMs: 20, maxBackoffMs: 500,
  onAck: (_, ack) => {
    const dup = ack.results.filter((r) => r.status === "duplicate").length;
    if (dup) process.stdout.write(`dup ${dup}\n`);
  },
});
const target = new Redeemer(url, process.env.SHAREVAT_TOKEN ?? "", { minBackoffMs: 20, maxBackoffMs: 500 });
const last = ob.status().lastOpId;
let next = last ? Number(last.slice(prefix.length + 1)) + 1 : 0;
while (next < total) {
  const n = Math.min(chunk, total - next);
  await ob.enqueue(Array.from({ length: n }, (_, i) => ({ opId: `${prefix}-${next + i}`, kind: "event", body: { p: prefix, n: next + i } })));
  next += n;
  await ob.flush(target);
  process.stdout.write(`${next}\n`);
}
await ob.flush(target);
target.close();
await ob.close();
process.stdout.write("done\n");

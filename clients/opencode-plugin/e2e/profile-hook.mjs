// Where the event hook's tail comes from: the same updates as
// bench-hook.mjs, each timed in parts — the item's mapping (JSON and
// SHA-256), the outbox's enqueue without the disk (frame, checksum,
// state) and the write + fsync — with the process's CPU time per call
// (wall time far above CPU time is time the process was not running:
// waiting on the disk, or descheduled on a busy machine) and GC pauses.
// Usage: node e2e/profile-hook.mjs [N] [dir]
import fs, { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { Outbox } from "@sharevat/client/outbox";
import { itemToOp } from "../src/mapping.js";

const n = Number(process.argv[2] ?? 2000);
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), "sharevat-hook-profile-"));
const ob = Outbox.openSync(join(dir, "outbox"));
const filler = "Some streamed words of an answer. ".repeat(28);
let gcMs = 0;
const gcs = new PerformanceObserver((l) => l.getEntries().forEach((e) => (gcMs += e.duration)));
gcs.observe({ entryTypes: ["gc"] });

// The disk's part alone: the same write + fsync of the same bytes into a side file.
const side = fs.openSync(join(dir, "side"), "w");
let at = 0;
const rows = [];
for (let i = 0; i < n; i++) {
  const part = { id: "prt_bench", sessionID: "ses_bench", messageID: "msg_bench", type: "text", text: filler + i, time: { start: 1795698300972 } };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const op = itemToOp("part", part, "ses_bench");
  const t1 = performance.now();
  ob.enqueueSync([{ opId: op.opId, kind: op.kind, key: op.key, body: Buffer.from(op.body) }]);
  const t2 = performance.now();
  const cpu = process.cpuUsage(c0);
  const buf = Buffer.from(op.body);
  const t3 = performance.now();
  fs.writeSync(side, buf, 0, buf.length, at);
  fs.fsyncSync(side);
  const t4 = performance.now();
  at += buf.length;
  rows.push({ map: t1 - t0, enqueue: t2 - t1, cpu: (cpu.user + cpu.system) / 1000, disk: t4 - t3 });
  await new Promise((r) => setImmediate(r));
}
const q = (k, f) => {
  const v = rows.map((r) => r[k]).sort((a, b) => a - b);
  return Number(v[Math.min(v.length - 1, Math.floor(f * v.length))].toFixed(3));
};
const slow = rows.filter((r) => r.enqueue >= q("enqueue", 0.99));
const avg = (k, rs) => Number((rs.reduce((s, r) => s + r[k], 0) / rs.length).toFixed(3));
console.log(JSON.stringify({
  updates: n, dir,
  mapMs: { p50: q("map", 0.5), p99: q("map", 0.99) },
  enqueueMs: { p50: q("enqueue", 0.5), p99: q("enqueue", 0.99) },
  enqueueCpuMs: { p50: q("cpu", 0.5), p99: q("cpu", 0.99) },
  writeFsyncAloneMs: { p50: q("disk", 0.5), p99: q("disk", 0.99) },
  slowestPercent: { enqueueMs: avg("enqueue", slow), cpuMs: avg("cpu", slow) },
  gcMsTotal: Number(gcMs.toFixed(1)),
}));
gcs.disconnect();
await ob.close();

// Benchmark (not a test): the latency of Outbox.enqueue, fsync included,
// one op per call, per storage backend this runtime has (file always;
// bun:sqlite under Bun; node:sqlite on Node >= 22.5). Prints p50, p99 and
// mean per backend, and ops per second when enqueued 100 at a time.
//
//   npm run build && node bench/outbox-enqueue.mjs [ops]     # Node
//   node_modules/bun/bin/bun.exe bench/outbox-enqueue.mjs    # Bun
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Outbox, builtinSqlite } from "../dist/outbox/index.js";

const n = Number(process.argv[2] ?? 2000);
const runtime = globalThis.Bun ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`;
const storages = ["file", ...((await builtinSqlite()) ? ["sqlite"] : [])];

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

for (const storage of storages) {
  const dir = mkdtempSync(join(tmpdir(), "sharevat-ob-bench-"));
  try {
    const ob = await Outbox.open(join(dir, "ob"), { storage });
    const body = { role: "assistant", text: "x".repeat(200) };
    const times = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await ob.enqueue([{ opId: `one-${i}`, kind: "part", key: `k${i % 50}`, body }]);
      times.push(performance.now() - t0);
    }
    const t0 = performance.now();
    for (let i = 0; i < n; i += 100) {
      await ob.enqueue(Array.from({ length: 100 }, (_, j) => ({ opId: `many-${i + j}`, kind: "part", key: `k${j}`, body })));
    }
    const batched = n / ((performance.now() - t0) / 1000);
    await ob.close();
    times.sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const kind = storage === "sqlite" ? await builtinSqlite() : "file";
    console.log(`${runtime} ${kind}: enqueue of 1 op p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms, mean ${mean.toFixed(2)} ms (${n} calls); 100 ops per call: ${Math.round(batched)} ops/s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The event hook's cost per update, fsync included: N message.part.updated
// events (a ~1 KB text part whose text changes each time) through the
// plugin's hook into a fresh outbox; prints p50/p99/max in ms. The vat URL
// points nowhere, so the background flush only retries (it does not
// compete for the disk). Usage: node e2e/bench-hook.mjs [N] [dir]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SharevatPlugin from "../src/index.js";

const n = Number(process.argv[2] ?? 2000);
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), "sharevat-hook-bench-"));
const hooks = await SharevatPlugin({}, { url: "http://127.0.0.1:9", token: "svt1_bench", dir });
process.stderr.write = () => true; // the retry lines
const times = [];
const filler = "Some streamed words of an answer. ".repeat(28);
for (let i = 0; i < n; i++) {
  const text = filler + i;
  const part = { id: "prt_bench", sessionID: "ses_bench", messageID: "msg_bench", type: "text", text, time: { start: 1795698300972 } };
  const t0 = performance.now();
  const p = hooks.event({ event: { type: "message.part.updated", properties: { part } } });
  times.push(performance.now() - t0);
  await p;
}
times.sort((a, b) => a - b);
const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))].toFixed(3);
console.log(JSON.stringify({ updates: n, dir, p50ms: q(0.5), p99ms: q(0.99), maxms: times[times.length - 1].toFixed(3) }));
await hooks.dispose();
process.exit(0);

// The TypeScript client against the Go client on one vat, in one run (a
// benchmark, not a test): sequential 1-op appends (latency p50, p95) and
// 64 connections appending at once (ops/s), each client appending 1-op
// batches with 200-byte bodies to a share of its own, as `sharevat bench
// --mode append` does. Prints a table and the ratios TS/Go.
//
//   npm run build && node scripts/bench.mjs [--bin ../../sharevat] [--seconds 10] [--clients 64]
//
// It starts its own vat (`sharevat serve` on a free loopback port, a
// temporary data directory) unless --server ws://…/rpc --token-file F
// name a running one. The Go figures come from `sharevat bench --server
// … --json`, run against the same vat between the TypeScript phases.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { connect } from "../dist/index.js";

const { values: args } = parseArgs({
  options: {
    bin: { type: "string", default: "sharevat" },
    seconds: { type: "string", default: "10" },
    clients: { type: "string", default: "64" },
    server: { type: "string" },
    "token-file": { type: "string" },
  },
});
const seconds = Number(args.seconds);
const clients = Number(args.clients);
const body = { type: "text", text: "x".repeat(200 - 26) }; // 200 bytes of JSON, as the Go bench's --body 200

/** Starts a vat; resolves with its /rpc URL, admin token file and a stop function. */
async function startVat() {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), "sharevat-bench-"));
  const proc = spawn(args.bin, ["serve", "--listen", `127.0.0.1:${port}`, "--data", join(dir, "data")], { stdio: ["ignore", "ignore", "pipe"] });
  await new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => String(d).includes("sharevat: serving on ") && resolve(undefined));
    proc.once("exit", (code) => reject(new Error(`sharevat serve exited ${code}`)));
  });
  return {
    rpc: `ws://127.0.0.1:${port}/rpc`,
    tokenFile: join(dir, "data", "admin.token"),
    stop: () => {
      proc.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One TS client: a connection, a fresh share and its appender. */
async function tsClient(url, admin) {
  const conn = await connect(url);
  const a = await conn.redeemAdmin(admin);
  const { share } = await a.createShare({ title: "bench" });
  return { conn, app: await share.appender() };
}

/** Appends 1-op batches on each client until the deadline; returns every latency in ms. */
async function drive(cs, ms) {
  const lat = [];
  const end = performance.now() + ms;
  let n = 0;
  await Promise.all(
    cs.map(async ({ app }, i) => {
      while (performance.now() < end) {
        const t = performance.now();
        await app.append({ ops: [{ opId: `c${i}-${n++}`, kind: "event", body }] });
        lat.push(performance.now() - t);
      }
    }),
  );
  return lat;
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** `sharevat bench` against the same vat, as JSON. */
function goBench(rpc, tokenFile, n) {
  return new Promise((resolve, reject) => {
    execFile(
      args.bin,
      ["bench", "--server", rpc, "--token-file", tokenFile, "--json", "--clients", String(n), "--duration", `${seconds}s`, "--ceiling-duration", "1s"],
      { maxBuffer: 1 << 24 },
      (err, stdout, stderr) => (err ? reject(new Error(`sharevat bench: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout).append)),
    );
  });
}

const vat = args.server ? { rpc: args.server, tokenFile: args["token-file"], stop: () => {} } : await startVat();
try {
  const admin = readFileSync(vat.tokenFile, "utf8").trim();
  const one = [await tsClient(vat.rpc, admin)];
  await drive(one, 1000); // warm-up
  const seq = await drive(one, seconds * 1000);
  one[0].conn.close();
  const goSeq = await goBench(vat.rpc, vat.tokenFile, 1);
  const many = await Promise.all(Array.from({ length: clients }, () => tsClient(vat.rpc, admin)));
  await drive(many, 1000);
  const cpu0 = process.cpuUsage();
  const par = await drive(many, seconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  const tsCores = (cpu.user + cpu.system) / 1e6 / seconds;
  many.forEach((c) => c.conn.close());
  const goPar = await goBench(vat.rpc, vat.tokenFile, clients);

  const ts = { p50: pct(seq, 50), p95: pct(seq, 95), ops: par.length / seconds };
  const go = { p50: goSeq.latency.p50_ms, p95: goSeq.latency.p95_ms, ops: goPar.ops_per_sec };
  const f = (x) => x.toFixed(2);
  console.log(`sequential 1-op appends, ${seconds} s each; ${clients} connections for throughput`);
  console.log(`client  p50 ms  p95 ms  ${clients}-conn ops/s`);
  console.log(`TS      ${f(ts.p50).padStart(6)}  ${f(ts.p95).padStart(6)}  ${ts.ops.toFixed(0).padStart(8)}`);
  console.log(`Go      ${f(go.p50).padStart(6)}  ${f(go.p95).padStart(6)}  ${go.ops.toFixed(0).padStart(8)}`);
  console.log(`TS/Go   p50 ×${f(ts.p50 / go.p50)}   throughput ×${f(ts.ops / go.ops)}`);
  console.log(`CPU during the ${clients}-connection phase: TS client ${f(tsCores)} cores; Go bench client ${f(goPar.cpu.bench_cores)} cores, vat ${f(goPar.cpu.vat_cores)} cores`);
} finally {
  vat.stop();
}

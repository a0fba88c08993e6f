// Test helpers of the outbox suites: a real `sharevat serve` (the binary
// named by SHAREVAT_BIN, which the Go driver outbox_test.go builds), shares
// made over Cap'n Web, the log read back, and temporary directories.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";

globalThis.WebSocket ??= WebSocket; // Node 20 has none

/** The sharevat binary. */
export const bin = process.env.SHAREVAT_BIN ?? "";
if (!bin) throw new Error("SHAREVAT_BIN is not set: run this suite through go test ./clients/typescript/test/outbox/");

/** A fresh temporary directory, removed at exit. */
export function tempDir(name = "ob") {
  const dir = mkdtempSync(join(tmpdir(), `sharevat-ts-${name}-`));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts `sharevat serve` on listen (default a free port) with its data in
 * data (default a fresh directory) and any more flags in args; resolves
 * once it serves.
 */
export function startVat({ data = join(tempDir("vat"), "data"), listen = "127.0.0.1:0", args = [] } = {}) {
  const child = spawn(bin, ["serve", "--listen", listen, "--data", data, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const exited = new Promise((r) => child.on("exit", (code, sig) => r({ code, sig })));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const m = /sharevat: serving on (ws:\/\/[^\s]+\/rpc)/.exec(log);
      if (m && !vat.rpc) {
        vat.rpc = m[1];
        vat.capnweb = m[1].replace(/\/rpc$/, "/capnweb");
        vat.listen = new URL(m[1]).host;
        resolve(vat);
      }
    });
    exited.then(({ code, sig }) => reject(new Error(`sharevat serve exited (${code ?? sig}) before serving:\n${log}`)));
    const vat = {
      rpc: "", capnweb: "", listen: "", data, child,
      log: () => log,
      adminToken: () => readFileSync(join(data, "admin.token"), "utf8").trim(),
      /** SIGKILLs it and waits until it is gone. */
      kill: async () => { child.kill("SIGKILL"); await exited; },
      /** Asks it to stop and waits. */
      stop: async () => { child.kill("SIGTERM"); await exited; },
    };
  });
}

/** Runs fn with a capnweb session to url, disposed afterwards. */
export async function withVault(url, fn) {
  const vault = newWebSocketRpcSession(url);
  try {
    return await fn(vault);
  } finally {
    vault[Symbol.dispose]();
  }
}

/** Creates a share; resolves with its id and owner token. */
export function createShare(vat, title = "outbox test") {
  return withVault(vat.capnweb, async (vault) => {
    const created = await vault.restoreAdmin(vat.adminToken()).createShare({ title });
    return { id: created.info.id, token: created.owner.token, grantId: created.owner.grantId };
  });
}

/** Mints a token of scope from token's grant. */
export function grant(vat, token, scope, label = "test") {
  return withVault(vat.capnweb, async (vault) => {
    const m = await vault.restore(token).share.grant(scope, 0, label);
    return { token: m.token, grantId: m.grantId };
  });
}

/** Revokes grantId with token's authority. */
export function revoke(vat, token, grantId) {
  return withVault(vat.capnweb, (vault) => vault.restore(token).share.revoke(grantId));
}

/** Reads the whole log of token's share: [{cursor, opId, batchId, seq, body}]. */
export function readLog(vat, token) {
  return withVault(vat.capnweb, async (vault) => {
    const reader = vault.restore(token).share.reader();
    const out = [];
    for (let from = 0; ; ) {
      const { ops } = await reader.read(from, 1000);
      if (ops.length === 0) return out;
      for (const e of ops) out.push({ cursor: e.cursor, opId: e.opId, batchId: e.batchId, seq: e.seq, kind: e.kind, key: e.key, body: e.body });
      from = ops[ops.length - 1].cursor;
    }
  });
}

/** The server's limits. */
export function limitsOf(vat) {
  return withVault(vat.capnweb, (vault) => vault.limits());
}

/** An event op whose body carries n. */
export function ev(opId, n) {
  return { opId, kind: "event", body: { n } };
}

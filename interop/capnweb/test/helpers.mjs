// Shared helpers of the Cap'n Web Node suite: the server's addresses from
// the environment capnweb_test.go sets, sessions of the official capnweb
// package over a WebSocket whose frames are recorded, the sharevat CLI
// (which speaks Cap'n Proto RPC at /rpc), and small waits.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";

// capnweb's WebSocket transport uses the global WebSocket, which Node 20
// lacks: lend it the ws package's.
globalThis.WebSocket ??= WebSocket;

/** @param {string} name */
function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this suite through go test ./interop/capnweb/`);
  return v;
}

/** ws://127.0.0.1:port/capnweb */
export const capnwebURL = need("SHAREVAT_CAPNWEB_URL");
/** http://127.0.0.1:port/capnweb, for HTTP batch. */
export const batchURL = capnwebURL.replace(/^ws/, "http");
/** ws://127.0.0.1:port/rpc, for the CLI. */
export const rpcURL = need("SHAREVAT_RPC_URL");
/** The sharevat binary serving both. */
export const bin = need("SHAREVAT_BIN");
/** The server's admin token. */
export const adminToken = readFileSync(need("SHAREVAT_ADMIN_TOKEN_FILE"), "utf8").trim();

/** The one answer every unredeemable token gets. */
export const UNAUTHORIZED = "unauthorized: invalid or expired token";

/**
 * @typedef {import("../sharevat.d.ts").Vault} Vault
 * @typedef {import("capnweb").RpcStub<Vault>} VaultStub
 * @typedef {{dir: "sent" | "recv", data: string}} Frame
 * @typedef {{vault: VaultStub, socket: WebSocket, frames: Frame[], closed: Promise<{code: number, reason: string}>}} Session
 */

/**
 * Opens a capnweb WebSocket session to /capnweb on a socket whose frames
 * are recorded in order (sent and received), and returns the main stub.
 * @returns {Session}
 */
export function connect() {
  const socket = new WebSocket(capnwebURL);
  /** @type {Frame[]} */
  const frames = [];
  const send = socket.send.bind(socket);
  socket.send = (/** @type {any} */ data, /** @type {any[]} */ ...rest) => {
    frames.push({ dir: "sent", data: String(data) });
    return send(data, ...rest);
  };
  // Registered before capnweb's own listener, so it sees each frame first.
  socket.addEventListener("message", (e) => frames.push({ dir: "recv", data: String(e.data) }));
  const closed = new Promise((resolve) => socket.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })));
  /** @type {VaultStub} */
  const vault = newWebSocketRpcSession(socket);
  return { vault, socket, frames, closed };
}

/**
 * Creates a share over Cap'n Web with the admin token and returns its
 * owner token and id. The session is closed afterwards.
 * @param {string} title
 */
export async function createShare(title) {
  const { vault } = connect();
  try {
    const admin = await vault.restoreAdmin(adminToken);
    const created = await admin.createShare({ title });
    return { owner: created.owner.token, ownerGrant: created.owner.grantId, id: created.info.id };
  } finally {
    vault[Symbol.dispose]();
  }
}

/**
 * Runs the sharevat CLI against /rpc with token in its environment (never
 * in its arguments) and a fresh outbox state directory; resolves with its
 * exit code and output, never rejects on a non-zero exit.
 * @param {string[]} args
 * @param {{token?: string, input?: string}} [opts]
 * @returns {Promise<{code: number, stdout: string, stderr: string}>}
 */
export function cli(args, opts = {}) {
  const state = mkdtempSync(join(tmpdir(), "sharevat-capnweb-state-"));
  const env = { ...process.env, SHAREVAT_URL: rpcURL, SHAREVAT_STATE: state, SHAREVAT_TOKEN: opts.token ?? "" };
  delete env.SHAREVAT_TOKEN_FILE;
  return new Promise((resolve) => {
    const child = execFile(bin, [...args, "--timeout", "20s"], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      rmSync(state, { recursive: true, force: true });
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(opts.input ?? "");
  });
}

/**
 * Runs the CLI and fails unless it exits 0; returns its stdout.
 * @param {string[]} args
 * @param {{token?: string, input?: string}} [opts]
 */
export async function cliOK(args, opts) {
  const r = await cli(args, opts);
  if (r.code !== 0) throw new Error(`sharevat ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/**
 * Resolves once cond() holds, polling every 10 ms; rejects after ms
 * milliseconds with what it waited for. For conditions nothing signals.
 * @param {() => boolean} cond
 * @param {string | (() => string)} what what it waits for (a function: said at the deadline)
 * @param {number} [ms]
 */
export async function waitUntil(cond, what, ms = 10_000) {
  const describe = typeof what === "function" ? what : () => what;
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${describe()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Races p against a deadline.
 * @template T
 * @param {Promise<T>} p
 * @param {string} what
 * @param {number} [ms]
 * @returns {Promise<T>}
 */
export function within(p, what, ms = 10_000) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([p, deadline]).finally(() => clearTimeout(timer)));
}

/**
 * Resolves with the error p rejects with; fails if it resolves.
 * @param {Promise<unknown>} p
 * @returns {Promise<Error & {code?: string}>}
 */
export async function rejection(p) {
  try {
    await within(p, "a rejection");
  } catch (err) {
    return /** @type {Error & {code?: string}} */ (err);
  }
  throw new Error("expected the call to fail, it succeeded");
}

/**
 * A text op with a JSON body.
 * @param {string} opId
 * @param {number} seq
 * @param {Record<string, unknown>} [body]
 * @returns {import("../sharevat.d.ts").Op}
 */
export function textOp(opId, seq, body = { type: "text", text: opId }) {
  return { opId, seq, kind: "part", key: `part-${opId}`, body: /** @type {any} */ (body) };
}

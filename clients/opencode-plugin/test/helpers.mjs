// Shared helpers of the plugin's Node suite: the vat's address from the
// environment plugin_test.go sets, scratch directories, and reading a
// share's log back over capnweb.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";

globalThis.WebSocket ??= /** @type {any} */ (WebSocket); // Node 20 has none; capnweb refers to the global

/** @param {string} name */
function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this suite through go test ./clients/opencode-plugin/`);
  return v;
}

/** The vat's base URL, http://127.0.0.1:port. */
export const vatURL = () => need("SHAREVAT_TEST_URL");
/** A creation token of the vat's opencode door (`sharevat opencode-token mint`). */
export const creationToken = () => readFileSync(need("SHAREVAT_CREATION_TOKEN_FILE"), "utf8").trim();

/**
 * Asks the door for sessionID's share as stock opencode does (POST
 * …/opencode/<creation token>/api/share): {id, url, secret}.
 * @param {string} sessionID
 */
export async function doorCreate(sessionID) {
  const res = await fetch(`${vatURL()}/opencode/${creationToken()}/api/share`, { method: "POST", body: JSON.stringify({ sessionID }) });
  if (!res.ok) throw new Error(`door create: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A fresh scratch directory. */
export function scratch() {
  return mkdtempSync(join(tmpdir(), "sharevat-ocplugin-"));
}

/**
 * Reads a share's whole log with token: [{opId, kind, key, body}] in order.
 * @param {string} token
 */
export async function readLog(token) {
  return readLogAt(vatURL(), token);
}

/**
 * Reads a share's state with token (its snapshot): [{kind, key, body, cursor}].
 * @param {string} token
 */
export async function readState(token) {
  const vault = newWebSocketRpcSession(new WebSocket(vatURL().replace(/^http/, "ws") + "/capnweb"));
  try {
    const r = await vault.restore(token);
    const reader = await r.share.reader();
    return (await reader.snapshot()).entities;
  } finally {
    vault[Symbol.dispose]();
  }
}

/**
 * readLog of the vat at base (http://host:port).
 * @param {string} base @param {string} token
 */
export async function readLogAt(base, token) {
  const vault = newWebSocketRpcSession(new WebSocket(base.replace(/^http/, "ws") + "/capnweb"));
  try {
    const r = await vault.restore(token);
    const reader = await r.share.reader();
    const out = [];
    let from = 0;
    for (;;) {
      const { ops, head } = await reader.read(from, 1000);
      for (const e of ops) out.push(e);
      if (ops.length === 0 || out.length >= Number(head)) break;
      from = Number(ops[ops.length - 1].cursor) + 1;
    }
    return out;
  } finally {
    vault[Symbol.dispose]();
  }
}

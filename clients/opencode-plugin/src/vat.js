// @ts-check
// Where the plugin meets the vat: the opencode door's create endpoint
// (POST <vat>/opencode/<creation token>/api/share {"sessionID"}), which
// answers the session's share, the same one every time for the same
// creation token and session (so a session shared by stock opencode
// through the door and by the plugin ends up in one share), and the vat's
// /capnweb, where the outbox sends through the package's Redeemer.

/** Error codes after which retrying cannot help: the flush of a session stops and keeps its ops. */
export const FATAL = new Set(["unauthorized", "revoked", "permissionDenied", "notFound"]);

/**
 * httpBase is the vat's web origin and prefix: the configured URL
 * (http(s)://host[:port][/prefix], or ws(s)://…[/capnweb]) without a
 * trailing /capnweb or /.
 * @param {string} url
 */
export function httpBase(url) {
  const u = new URL(url);
  if (u.protocol === "ws:") u.protocol = "http:";
  if (u.protocol === "wss:") u.protocol = "https:";
  u.pathname = u.pathname.replace(/\/capnweb\/?$/, "").replace(/\/$/, "");
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/$/, "");
}

/**
 * The door's answer for a session: the share's id, its owner token (the
 * door's "secret": append and delete rights) and its read-only link.
 * @typedef {{sessionID: string, shareId: string, token: string, link: string}} DoorShare
 */

/**
 * createShare asks the door for sessionID's share with the creation token.
 * It rejects with an Error whose code is "unauthorized" (a refused
 * creation token: retrying cannot help), or "unavailable" (unreachable,
 * or a 5xx/429: retry later). Neither message holds a token.
 * @param {string} url the vat's URL
 * @param {string} creationToken
 * @param {string} sessionID
 * @param {AbortSignal} [signal]
 * @returns {Promise<DoorShare>}
 */
export async function createShare(url, creationToken, sessionID, signal) {
  const base = httpBase(url);
  let res;
  try {
    res = await fetch(`${base}/opencode/${encodeURIComponent(creationToken)}/api/share`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionID }),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw coded("unavailable", `cannot reach ${base}: ${/** @type {any} */ (err)?.cause?.code ?? /** @type {any} */ (err)?.message ?? err}`);
  }
  const text = await res.text();
  if (!res.ok) {
    const code = res.status === 401 || res.status === 403 ? "unauthorized" : res.status >= 500 || res.status === 429 ? "unavailable" : "invalid";
    throw coded(code, `${base}/opencode/…/api/share answered ${res.status}: ${text.slice(0, 200).trim()}`);
  }
  const a = JSON.parse(text);
  if (typeof a.id !== "string" || typeof a.secret !== "string" || typeof a.url !== "string") {
    throw coded("invalid", `${base}/opencode/…/api/share answered without id, url and secret`);
  }
  return { sessionID, shareId: a.id, token: a.secret, link: a.url };
}

/** @param {string} code @param {string} msg */
function coded(code, msg) {
  return Object.assign(new Error(msg), { code });
}

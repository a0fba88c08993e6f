// app.js: the share page. The link is <base>/s/#<token>: the token is in
// the fragment, so it never leaves the browser except over the page's
// own WebSocket to /capnweb. The page redeems it (Vault.restore), reads
// the log backwards from its head in bounded chunks until it has the
// last screenful of messages, then follows the log live
// (Reader.subscribe) from the head; older ops are read a chunk at a
// time as the reader scrolls up (view.js keeps only the messages near
// the screen in the DOM). After a network drop or a vat restart it
// reconnects with backoff and resumes from the last cursor it applied
// (reading the end afresh if the vat answers "compacted"). When the
// link dies (revoked, expired, share deleted) it says so and drops
// everything it showed.

import { connect } from "./capnweb-lite.js";
import { View } from "./view.js";
import { el } from "./dom.js";

const statusEl = document.getElementById("status");
const view = new View(document.getElementById("content"), () => loadOlder());

const tokenPattern = /^svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}$/;
const pingEveryMs = 20000;
const pingTimeoutMs = 10000;
const chunk = 500; // ops per read (about 1.5 MB of a coding session)
const firstReads = 8; // reads at most before the page shows the end
const firstMessages = 40; // messages that fill the first screen and more

let token = tokenFromHash();
let cursor = 0; // the last cursor applied
let haveState = false;
let older = 0; // ops at or below this cursor are not read yet
let earliest = 0; // the log's first cursor minus one
let reader = null; // the live connection's Reader, for older reads
let loading = null; // the read of older ops under way
let access = null; // the link's Access, from restore
let dead = false;

function tokenFromHash() {
  const t = decodeURIComponent(location.hash.replace(/^#/, "")).trim();
  return tokenPattern.test(t) ? t : tokenFromPath();
}

// tokenFromPath reads the link of an opencode share, /share/<token>
// (docs/opencode.md), where the token is the path's last segment.
function tokenFromPath() {
  const m = /^\/share\/([^/]+)$/.exec(location.pathname);
  const t = m ? decodeURIComponent(m[1]).trim() : "";
  return tokenPattern.test(t) ? t : null;
}

// setStatus shows the connection state: connecting, live, reconnecting,
// revoked, nolink.
function setStatus(state, text) {
  statusEl.dataset.state = state;
  statusEl.textContent = text;
}

// capnwebURL is /capnweb beside /s/ on the page's own origin.
function capnwebURL() {
  const u = new URL("../capnweb", location.href);
  u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  u.hash = "";
  return u.href;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// backoff is 0.5 s doubling to 15 s, with ±25% jitter.
function backoff(n) {
  const d = Math.min(15000, 500 * 2 ** Math.min(n, 5));
  return d * (0.75 + Math.random() / 2);
}

async function main() {
  if (!token) {
    setStatus("nolink", "This link has no valid token. A share link looks like …/s/#svt1_….");
    return;
  }
  let failures = 0;
  while (!dead) {
    setStatus(failures ? "reconnecting" : "connecting", failures ? "Reconnecting…" : "Connecting…");
    const outcome = await follow();
    if (outcome.kind === "dead") {
      linkDead();
      return;
    }
    failures = outcome.wasLive ? 1 : failures + 1;
    const wait = backoff(failures - 1);
    setStatus("reconnecting", `Connection lost; retrying in ${Math.ceil(wait / 1000)} s…`);
    await sleep(wait);
  }
}

// linkDead forgets the token and everything shown.
function linkDead() {
  dead = true;
  token = null;
  cursor = 0;
  haveState = false;
  reader = null;
  view.clear();
  history.replaceState(null, "", location.pathname + location.search);
  document.title = "Link no longer valid · sharevat";
  setStatus("revoked", "This link is no longer valid: it was revoked, it expired, or the share was deleted. Nothing of the session is kept on this page.");
}

// follow runs one connection until it ends: {kind: "dead"} when the link
// died, {kind: "retry", wasLive} otherwise.
async function follow() {
  let onEnd;
  const ended = new Promise((r) => (onEnd = r));
  let session;
  try {
    session = await connect(capnwebURL(), () => onEnd({ kind: "retry" }));
  } catch {
    return { kind: "retry", wasLive: false };
  }
  let wasLive = false;
  let pinger = null;
  try {
    const vault = session.main();
    const restored = vault.call("restore", token);
    const readerAnswer = restored.get("share").call("reader");
    const r = await restored;
    access = r.access;
    view.setInfo(r.info, access);
    reader = await readerAnswer;
    const sink = session.exportTarget({
      push: (ops) => onOps(ops, r.share),
      end: (code) => onEnd({ kind: code === "revoked" ? "dead" : "retry" }),
    });
    await subscribe(reader, sink, r.info);
    wasLive = true;
    setStatus("live", "Live");
    pinger = setInterval(() => ping(vault, session), pingEveryMs);
    const outcome = await ended;
    return { ...outcome, wasLive };
  } catch (err) {
    const code = err && err.code;
    if (code === "unauthorized" || code === "revoked") return { kind: "dead" };
    return { kind: "retry", wasLive };
  } finally {
    clearInterval(pinger);
    setTimeout(() => session.close(), 0); // after answering end
  }
}

// subscribe follows the log from the last cursor applied, reading the
// end of the log first when the page has nothing (or the log was
// compacted past the cursor, or the vat no longer has it).
async function subscribe(reader, sink, info) {
  if (!haveState) await loadTail(reader, info);
  try {
    return await reader.call("subscribe", cursor, sink);
  } catch (err) {
    if (err.code !== "compacted" && err.code !== "invalid") throw err;
  }
  await loadTail(reader, info);
  return await reader.call("subscribe", cursor, sink);
}

// loadTail replaces what the page shows with the end of the log: it
// reads backwards from the head, chunk by chunk, until it knows
// firstMessages messages, the log's start or firstReads reads.
async function loadTail(reader, info) {
  view.reset();
  view.setInfo(info, access);
  earliest = Math.max(1, Number(info.earliest) || 1) - 1;
  cursor = Number(info.head) || 0;
  older = cursor;
  haveState = true;
  loading = null;
  const started = performance.now();
  for (let n = 0; n < firstReads && older > earliest && view.messageCount() < firstMessages; n++) {
    await readOlder(reader);
  }
  view.setComplete(older <= earliest);
  view.whenShown(() => console.debug(`sharevat: the last message shown after ${Math.round(performance.now() - started)} ms`));
}

// readOlder reads the chunk of ops just below older and folds it in.
// The vat may answer fewer ops than asked (its answers are bounded in
// bytes): the rest of the chunk is read from where the answer stopped.
async function readOlder(reader) {
  const from = Math.max(earliest, older - chunk);
  for (let at = from; at < older; ) {
    const r = await reader.call("read", at, older - at);
    const ops = Array.isArray(r.ops) ? r.ops : [];
    if (ops.length === 0) break;
    for (const e of ops) if (Number(e.cursor) <= older) view.apply(e);
    at = Number(ops[ops.length - 1].cursor);
  }
  older = from;
}

// loadOlder reads one more chunk of older ops, when the reader scrolled
// to the oldest message loaded; one read at a time.
function loadOlder() {
  if (loading || !reader || older <= earliest || dead) return;
  const r = reader;
  loading = readOlder(r).then(
    () => {
      view.setComplete(older <= earliest);
      view.onScroll(); // still at the top: read on
    },
    () => {},
  ).finally(() => (loading = null));
}

// onOps applies a push of the subscription, skipping ops already applied
// (a resumed subscription starts after the cursor, so there are none
// unless the vat repeats itself).
function onOps(ops, share) {
  if (dead || !Array.isArray(ops)) return;
  for (const e of ops) {
    const c = Number(e.cursor);
    if (c <= cursor) continue;
    view.apply(e);
    cursor = c;
  }
  refreshInfo(share);
}

// refreshInfo re-reads the share's metadata (title, status, times) at
// most every 3 s while ops arrive.
let infoAt = 0;
function refreshInfo(share) {
  const now = Date.now();
  if (now - infoAt < 3000) return;
  infoAt = now;
  share.call("info").then((r) => {
    if (!dead) view.setInfo(r.info);
  }, () => {});
}

// ping closes a connection whose vat stopped answering, so the page
// reconnects instead of waiting on a dead socket.
function ping(vault, session) {
  const timer = setTimeout(() => session.close(), pingTimeoutMs);
  vault.call("ping").then(() => clearTimeout(timer), () => clearTimeout(timer));
}

window.addEventListener("hashchange", () => {
  if (tokenFromHash() && tokenFromHash() !== token) location.reload();
});

main().catch((err) => {
  setStatus("error", "The page failed: " + String(err && err.message));
  document.getElementById("content").replaceChildren(el("p", "muted", "Reload the page to try again."));
});

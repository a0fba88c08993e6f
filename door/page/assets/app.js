// app.js: the share page. The link is <base>/s/#<token>: the token is in
// the fragment, so it never leaves the browser except over the page's
// own WebSocket to /capnweb. The page redeems it (Vault.restore), reads
// the share's state newest first in bounded pages until it has the last
// screenful of messages, then follows the log live (Reader.subscribe)
// from the head; older pages are read one at a time as the reader
// scrolls up (view.js keeps only the messages near
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
const pageEntities = 500; // entities per page of the state
const pageBytes = 1 << 20; // bytes per page of the state
const firstReads = 8; // pages read at most before the page shows the end
const firstMessages = 40; // messages that fill the first screen and more
const eventLookback = 500; // ops read back for the events before the head

let token = tokenFromHash();
let cursor = 0; // the last cursor applied
let haveState = false;
let after; // where the next page of the state starts (its next)
let done = false; // every page of the state has been read
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

// loadTail replaces what the page shows with the newest of the share's
// state: it reads the state a page at a time, most recently changed
// first (Reader.snapshotPage "byChange"), until it knows firstMessages
// messages, the whole state or firstReads pages, and the events among
// the last ops of the log (events are not in the state). It follows
// the log from the first page's head: what changes while it reads
// comes live.
async function loadTail(reader, info) {
  view.reset();
  view.setInfo(info, access);
  after = undefined;
  done = false;
  haveState = true;
  loading = null;
  const started = performance.now();
  cursor = await readPage(reader);
  const events = readEvents(reader, cursor, Number(info.earliest) || 1);
  for (let n = 1; n < firstReads && !done && view.messageCount() < firstMessages; n++) await readPage(reader);
  for (const e of await events) view.apply(e);
  view.setComplete(done);
  view.whenShown(() => console.debug(`sharevat: the last message shown after ${Math.round(performance.now() - started)} ms`));
}

// readPage reads the next page of the state, folds it in and answers
// the head the vat read it at.
async function readPage(reader) {
  const r = await reader.call("snapshotPage", "byChange", after, pageEntities, pageBytes);
  for (const e of Array.isArray(r.entities) ? r.entities : []) view.apply(e);
  after = r.next;
  done = !!r.done;
  return Number(r.head) || 0;
}

// readEvents answers the events among the last eventLookback ops up to
// head ([] when they cannot be read).
async function readEvents(reader, head, earliest) {
  const from = Math.max(earliest - 1, head - eventLookback);
  try {
    const r = await reader.call("read", from, head - from);
    return (Array.isArray(r.ops) ? r.ops : []).filter((e) => e.kind === "event" && Number(e.cursor) <= head);
  } catch {
    return [];
  }
}

// loadOlder reads one more page of the state, when the reader scrolled
// to the oldest message loaded; one read at a time.
function loadOlder() {
  if (loading || !reader || done || dead) return;
  loading = readPage(reader).then(
    () => {
      view.setComplete(done);
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

// @ts-check
// sharevat's opencode plugin: every update of a shared opencode session
// is written to a per-session durable outbox on disk before the event
// hook returns (@sharevat/client/outbox's enqueueSync), as ops mapped
// exactly as the vat's opencode door maps share items (docs/opencode.md,
// "Item mapping"), and flushed in the background into the share the door
// answers for the session and the creation token; what a run leaves
// unsent is sent by the next start (or `sharevat-opencode-flush`). See
// README.md.
//
// This module exports only the plugin: opencode calls every export of a
// plugin module as a plugin.
import fs from "node:fs";
import { resolveSettings } from "./config.js";
import { Flusher } from "./flusher.js";
import { eventToItem, itemToOp } from "./mapping.js";

/**
 * The plugin. Options (or the environment): url (SHAREVAT_URL), token
 * (SHAREVAT_TOKEN, a creation token) or tokenFile (SHAREVAT_TOKEN_FILE), dir
 * (SHAREVAT_OPENCODE_DIR), sessions "all" | "shared"
 * (SHAREVAT_OPENCODE_SESSIONS).
 * @param {any} input opencode's PluginInput
 * @param {Record<string, unknown>} [options]
 */
export const SharevatPlugin = async (input, options) => {
  const s = resolveSettings(options, process.env);
  const log = (/** @type {string} */ line) => {
    process.stderr.write(line + "\n");
    input?.client?.app?.log?.({ body: { service: "sharevat", level: "info", message: line } })?.catch?.(() => {});
  };
  if (!s.url || !s.token) {
    log("sharevat: SHAREVAT_URL and SHAREVAT_TOKEN (a creation token; or the plugin's url and token options) are not both set; not sharing");
    return {};
  }
  const flusher = new Flusher({ url: s.url, token: s.token, dir: s.dir, log, onLink: (id, link) => showLink(input, log, id, link) });
  const t = new Tracker(flusher, s.sessions, log, input?.client);
  flusher.flushAll().catch((err) => log(`sharevat: start-up flush: ${err?.message ?? err}`));
  return {
    event: async (/** @type {{event: any}} */ { event }) => t.handle(event),
    // opencode's shutdown: up to 2 s more for the flush in progress; what
    // is left stays in the outbox for the next start.
    dispose: async () => {
      /** @type {any} */
      let timer;
      const grace = new Promise((r) => (timer = setTimeout(r, 2000)));
      await Promise.race([Promise.all(flusher.running.values()), grace]);
      clearTimeout(timer);
      await flusher.close();
    },
  };
};

export default SharevatPlugin;

/**
 * showLink makes a share link visible: a line on stderr (what `opencode
 * run` shows), opencode's log, a toast in the TUI, and the file link in
 * the session's outbox directory.
 * @param {any} input @param {(l: string) => void} log @param {string} sessionID @param {string} link
 */
function showLink(input, log, sessionID, link) {
  log(`sharevat: session ${sessionID} is shared at ${link}`);
  input?.client?.tui?.showToast?.({ body: { title: "sharevat", message: `Shared: ${link}`, variant: "success", duration: 10000 } })?.catch?.(() => {});
}

/** Decides which sessions are shared and turns their events into outbox ops. */
class Tracker {
  /**
   * @param {Flusher} flusher @param {"all" | "shared"} mode @param {(l: string) => void} log
   * @param {any} client opencode's SDK client (PluginInput.client), for the full sync of a session shared late
   */
  constructor(flusher, mode, log, client) {
    this.flusher = flusher;
    this.mode = mode;
    this.log = log;
    this.client = client;
    /** @type {Set<string>} sessions opencode itself shares (mode "shared") */
    this.shared = new Set();
    /** @type {Map<string, string>} session/kind/key → the last op id this process enqueued */
    this.last = new Map();
  }

  /**
   * Enqueues op in the session's outbox durably (enqueueSync: on disk when
   * it returns), unless it equals the last op enqueued for its kind and
   * key; returns whether it was written.
   * @param {string} sessionID @param {{opId: string, kind: string, key: string, body: string}} op
   */
  enqueue(sessionID, op) {
    const k = `${sessionID}\u0000${op.kind}\u0000${op.key}`;
    if (this.last.get(k) === op.opId) return false;
    this.flusher.outbox(sessionID).enqueueSync([{ opId: op.opId, kind: op.kind, key: op.key, body: Buffer.from(op.body) }]);
    this.last.set(k, op.opId);
    return true;
  }

  /**
   * Whether this process has enqueued an op for the session's kind and key.
   * @param {string} sessionID @param {string} kind @param {string} key
   */
  seen(sessionID, kind, key) {
    return this.last.has(`${sessionID}\u0000${kind}\u0000${key}`);
  }

  /**
   * Handles one bus event synchronously: the op is durable when this
   * returns. Never throws (a failure is logged: the hook must not break
   * opencode).
   * @param {any} event
   */
  handle(event) {
    try {
      if (event?.type === "session.deleted" && event.properties?.info?.id) return this.unshare(event.properties.info.id);
      const item = eventToItem(event);
      if (!item || !item.sessionID) return;
      if (item.type === "session" && !this.follow(item.data)) return;
      if (this.mode === "shared" && !this.shared.has(item.sessionID)) return;
      const op = itemToOp(item.type, item.data, item.sessionID);
      if (this.enqueue(item.sessionID, op)) this.flusher.kick(item.sessionID);
    } catch (err) {
      this.log(`sharevat: event ${event?.type}: ${/** @type {any} */ (err)?.message ?? err}`);
    }
  }

  /**
   * Notes a session's metadata and, in mode "shared", whether opencode
   * shares it; returns whether its item is to be kept.
   * @param {any} info
   */
  follow(info) {
    if (this.mode !== "shared") return true;
    const was = this.shared.has(info.id);
    const is = Boolean(info.share?.url);
    if (is && !was) {
      this.shared.add(info.id);
      this.fullSync(info.id).catch((err) => this.log(`sharevat: session ${info.id}: full sync: ${err?.message ?? err}`));
    }
    if (!is && was) {
      this.shared.delete(info.id);
      this.unshare(info.id);
      return false;
    }
    return is;
  }

  /**
   * Enqueues what a session held before it became shared (its messages
   * and parts, and its diff, read through opencode's API), skipping every
   * key an event has enqueued since: an event's version is never older
   * than the read.
   * @param {string} sessionID
   */
  async fullSync(sessionID) {
    const path = { path: { id: sessionID } };
    const [res, diff] = await Promise.all([
      this.client?.session?.messages?.(path),
      this.client?.session?.diff?.(path)?.catch?.(() => undefined), // an older opencode without the route: no diff
    ]);
    const list = Array.isArray(res?.data) ? res.data : [];
    if (!this.shared.has(sessionID)) return;
    /** @type {[string, any][]} */
    const items = [];
    for (const m of list) items.push(["message", m.info], ...(m.parts ?? []).map((/** @type {any} */ p) => /** @type {[string, any]} */ (["part", p])));
    if (Array.isArray(diff?.data)) items.push(["session_diff", diff.data]);
    let n = 0;
    for (const [type, data] of items) {
      const op = itemToOp(type, data, sessionID);
      if (this.seen(sessionID, op.kind, op.key)) continue;
      if (this.enqueue(sessionID, op)) n++;
    }
    if (n > 0) this.flusher.kick(sessionID);
  }

  /** @param {string} sessionID */
  unshare(sessionID) {
    this.shared.delete(sessionID);
    if (!fs.existsSync(this.flusher.dirOf(sessionID))) return;
    this.flusher.remove(sessionID).catch(() => {});
  }
}

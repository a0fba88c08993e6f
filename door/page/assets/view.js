// view.js: the session as the page shows it. apply() folds one log entry
// into the model at once, keeping of each (kind, key) the version the
// vat's state keeps (version.js), in whatever order the entries come,
// and marks what changed; the DOM is updated on the next animation
// frame, only for what changed and only for the messages in the
// timeline's window (timeline.js), in slices of about 12 ms.

import { el, when, ms, str, isObj } from "./dom.js";
import { renderPart, messageView, partMessage, plainBody, renderDiffs, renderEvent } from "./parts.js";
import { Versions } from "./version.js";
import { Timeline } from "./timeline.js";

const maxEvents = 500; // events kept on the page (the oldest go first)
const sliceMs = 12;

export class View {
  // needOlder is called when the reader scrolls to the oldest message
  // loaded and the log has older ops.
  constructor(root, needOlder) {
    this.root = root;
    this.needOlder = needOlder;
    this.reset();
    addEventListener("scroll", () => this.onScroll(), { passive: true });
    addEventListener("resize", () => this.onScroll(), { passive: true });
  }

  // reset empties the page and the model, and builds the empty layout.
  reset() {
    this.gen = (this.gen || 0) + 1; // invalidates a scheduled frame
    this.scheduled = false;
    this.info = null;
    this.access = null;
    this.session = null;
    this.models = new Map();
    this.msgs = new Map(); // message key -> rec
    this.versions = new Versions();
    this.complete = false; // the whole log has been read
    this.parts = new Map(); // part key -> {msg, body, node}
    this.diffs = undefined;
    this.others = new Map(); // "kind\0key" -> {kind, key, body, node}
    this.eventsDropped = 0;
    this.dirtyMsgs = new Set();
    this.dirtyParts = new Set();
    this.dirtyOthers = new Set();
    this.dirtyHead = true;
    this.dirtyDiffs = false;
    this.layout();
  }

  // clear drops everything shown and known: nothing of the session stays
  // in the page.
  clear() {
    this.reset();
    this.root.replaceChildren();
  }

  layout() {
    this.head = el("section", "session-head");
    this.msgBox = el("div", "messages");
    this.diffBox = el("section", "changes hidden", el("h2", null, "Changes"));
    this.diffBody = el("div");
    this.diffBox.append(this.diffBody);
    this.events = []; // the last maxEvents events, by cursor
    this.dirtyEvents = false;
    this.dirtyWindow = false;
    this.eventList = el("ol", "events");
    this.eventNote = el("p", "muted hidden");
    this.eventBox = el("section", "events-box hidden", el("h2", null, "Events"), this.eventNote, this.eventList);
    this.otherBox = el("section", "others hidden", el("h2", null, "Other entries"));
    this.root.replaceChildren(this.head, this.msgBox, this.diffBox, this.eventBox, this.otherBox);
    this.timeline = new Timeline(this.msgBox, {
      show: (rec) => this.showMessage(rec),
      hide: (rec) => this.hideMessage(rec),
      needOlder: () => this.needOlder && this.needOlder(),
    });
  }

  // setComplete says whether every op of the log has been read: parts
  // whose message never arrived are shown only then.
  setComplete(done) {
    if (this.complete === done) return;
    this.complete = done;
    for (const rec of this.msgs.values()) if (!rec.placed) this.dirtyMsgs.add(rec);
    this.dirtyWindow = true;
    this.schedule();
  }

  // messageCount is the number of messages in order.
  messageCount() {
    return this.timeline.order.length;
  }

  // whenShown calls fn once what the model holds is on the page.
  whenShown(fn) {
    this.onShown = fn;
    this.schedule();
  }

  onScroll() {
    if (this.scrollPending) return;
    this.scrollPending = true;
    requestAnimationFrame(() => {
      this.scrollPending = false;
      if (this.timeline.scrolled(this.complete)) {
        this.dirtyWindow = true;
        this.schedule();
      }
    });
  }

  // setInfo shows the share's metadata (Vault.restore's info) and the
  // link's access.
  setInfo(info, access) {
    this.info = isObj(info) ? info : null;
    if (access !== undefined) this.access = isObj(access) ? access : null;
    this.dirtyHead = true;
    this.schedule();
  }

  // apply folds one entry into the model: {kind, key, body, delete, at,
  // cursor}.
  apply(e) {
    if (e.kind !== "event" && !this.versions.admit(e)) return;
    switch (e.kind) {
      case "session":
        this.session = e.delete ? null : e.body;
        this.dirtyHead = true;
        break;
      case "model":
        if (e.delete) this.models.delete(e.key);
        else this.models.set(e.key, e.body);
        this.dirtyHead = true;
        break;
      case "message":
        this.applyMessage(e);
        break;
      case "part":
        this.applyPart(e);
        break;
      case "session_diff":
        this.diffs = e.delete ? undefined : e.body;
        this.dirtyDiffs = true;
        break;
      case "event":
        this.addEvent(e);
        break;
      default:
        this.applyOther(e);
    }
    this.schedule();
  }

  applyMessage(e) {
    const rec = this.msg(e.key, e.at);
    rec.body = e.delete ? null : e.body;
    this.dirtyMsgs.add(rec);
    if (!rec.body && rec.parts.size === 0) this.dropMessage(rec);
  }

  msg(key, at) {
    let rec = this.msgs.get(key);
    if (!rec) {
      rec = { key, body: null, at: ms(at), parts: new Map(), partOrder: [], placed: false, sortKey: null };
      rec.headBox = el("div");
      rec.partsBox = el("div", "parts");
      rec.node = el("article", "msg", rec.headBox, rec.partsBox);
      rec.node.dataset.key = key;
      this.msgs.set(key, rec);
    }
    return rec;
  }

  dropMessage(rec) {
    this.msgs.delete(rec.key);
    this.dirtyMsgs.delete(rec);
    this.unplace(rec);
  }

  // addEvent keeps the last maxEvents events in cursor order (older
  // events arrive after newer ones while the page reads back).
  addEvent(e) {
    const c = Number(e.cursor) || 0;
    const i = bsearch(this.events, c, (a, x) => (Number(a.cursor) || 0) - x);
    if (this.events.length >= maxEvents && i === 0) {
      this.eventsDropped++;
      return;
    }
    this.events.splice(i, 0, e);
    if (this.events.length > maxEvents) {
      this.events.shift();
      this.eventsDropped++;
    }
    this.dirtyEvents = true;
  }

  applyPart(e) {
    const old = this.parts.get(e.key);
    if (e.delete) {
      if (old) this.dropPart(e.key, old);
      return;
    }
    const msgKey = partMessage(e.body);
    if (old && old.msg.key !== msgKey) this.dropPart(e.key, old);
    const rec = this.msg(msgKey, e.at);
    const p = old && old.msg === rec ? old : { msg: rec, node: null };
    p.body = e.body;
    this.parts.set(e.key, p);
    rec.parts.set(e.key, p);
    this.dirtyMsgs.add(rec);
    this.dirtyParts.add(e.key);
  }

  dropPart(key, p) {
    this.parts.delete(key);
    this.dirtyParts.delete(key);
    const rec = p.msg;
    rec.parts.delete(key);
    const i = bsearch(rec.partOrder, key, cmpStr);
    if (rec.partOrder[i] === key) rec.partOrder.splice(i, 1);
    if (p.node) p.node.remove();
    this.dirtyWindow = true;
    if (!rec.body && rec.parts.size === 0) this.dropMessage(rec);
  }

  applyOther(e) {
    const id = e.kind + "\u0000" + e.key;
    const o = this.others.get(id) || { kind: e.kind, key: e.key, node: null };
    o.body = e.body;
    o.deleted = !!e.delete;
    this.others.set(id, o);
    this.dirtyOthers.add(id);
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    const gen = this.gen;
    requestAnimationFrame(() => {
      if (gen !== this.gen) return;
      this.scheduled = false;
      this.flush();
    });
  }

  // flush updates the DOM for what changed, for about sliceMs; what is
  // left waits for the next frame.
  flush() {
    const start = performance.now();
    const spent = () => performance.now() - start > sliceMs;
    if (this.dirtyHead) this.renderHead();
    if (this.dirtyDiffs) this.renderDiffs();
    if (this.dirtyEvents) this.renderEvents();
    for (const id of this.dirtyOthers) this.renderOther(id);
    this.dirtyOthers.clear();
    // A part renders into its message's box whether or not the message
    // is placed yet, so the two lists can be sliced independently.
    for (const rec of this.dirtyMsgs) {
      this.dirtyMsgs.delete(rec);
      this.renderMessage(rec);
      if (spent()) break;
    }
    for (const key of this.dirtyParts) {
      if (spent()) break;
      this.dirtyParts.delete(key);
      this.renderPartNode(key);
    }
    if (this.dirtyWindow) {
      this.dirtyWindow = false;
      this.timeline.sync(this.complete);
    }
    this.timeline.stick();
    if (this.dirtyMsgs.size || this.dirtyParts.size) this.schedule();
    else if (this.onShown) {
      this.onShown();
      this.onShown = null;
    }
    this.root.dataset.parts = String(this.parts.size - this.dirtyParts.size);
  }

  renderHead() {
    this.dirtyHead = false;
    const m = this.info && isObj(this.info.meta) ? this.info.meta : {};
    const s = isObj(this.session) ? this.session : {};
    const st = isObj(s.time) ? s.time : {};
    const title = str(m.title) || str(s.title) || "Untitled session";
    document.title = title + " · sharevat";
    const status = str(m.status) && m.status !== "unset" ? m.status : "";
    const rows = [
      ["Project", str(m.projectId) || str(s.projectID)],
      ["Directory", str(m.directory) || str(s.directory)],
      ["Created", when(m.createdAt) || when(st.created)],
      ["Updated", when(m.updatedAt) || when(st.updated)],
      ["Version", str(m.version) || str(s.version)],
      ["Models", [...this.models.keys()].join(", ")],
      ["Link", this.accessText()],
    ].filter(([, v]) => v);
    const dl = el("dl", "meta");
    for (const [k, v] of rows) dl.append(el("dt", null, k), el("dd", null, v));
    const h1 = el("h1", null, title, status ? el("span", "badge st-" + status.replace(/[^a-z]/g, ""), status) : null);
    this.head.replaceChildren(h1, dl);
  }

  accessText() {
    if (!this.access) return "";
    const exp = when(this.access.expiresAt);
    return "read-only" + (exp ? ", expires " + exp : "");
  }

  // renderMessage places a message in order and, when it is in the
  // window, redraws its header. A message known only by its parts waits
  // for its body until the whole log has been read: it is an older
  // message whose part was rewritten later.
  renderMessage(rec) {
    if (!this.msgs.has(rec.key)) return;
    if (!rec.body && !this.complete) {
      this.unplace(rec);
      return;
    }
    const t = isObj(rec.body) && isObj(rec.body.time) && typeof rec.body.time.created === "number" ? rec.body.time.created : rec.at;
    const sortKey = [Number.isFinite(t) ? t : Infinity, rec.key];
    if (!rec.placed || cmpMsg(sortKey, rec.sortKey) !== 0) {
      this.unplace(rec);
      rec.sortKey = sortKey;
      const order = this.timeline.order;
      this.timeline.place(rec, bsearch(order, rec, (a, b) => cmpMsg(a.sortKey, b.sortKey)));
      rec.placed = true;
      this.dirtyWindow = true;
    }
    if (this.timeline.inWindow(rec)) this.renderHeader(rec);
  }

  renderHeader(rec) {
    const role = isObj(rec.body) ? str(rec.body.role) : "";
    rec.node.className = "msg" + (role ? " role-" + role.replace(/[^a-z]/g, "") : "");
    rec.headBox.replaceChildren(messageView(rec.key, rec.body));
  }

  unplace(rec) {
    if (!rec.placed) return;
    this.timeline.unplace(rec);
    rec.placed = false;
    this.dirtyWindow = true;
  }

  // showMessage fills a message's node as it enters the window.
  showMessage(rec) {
    this.renderHeader(rec);
    for (const key of rec.parts.keys()) this.renderPartNode(key);
  }

  // hideMessage empties a message's node as it leaves the window.
  hideMessage(rec) {
    rec.partsBox.replaceChildren();
    rec.partOrder = [];
    for (const p of rec.parts.values()) p.node = null;
  }

  renderPartNode(key) {
    const p = this.parts.get(key);
    if (!p || !this.timeline.inWindow(p.msg)) return;
    const node = renderPart(key, p.body);
    if (p.node) {
      p.node.replaceWith(node);
      p.node = node;
      return;
    }
    const rec = p.msg;
    const i = bsearch(rec.partOrder, key, cmpStr);
    const next = rec.partOrder[i];
    rec.partsBox.insertBefore(node, next !== undefined ? rec.parts.get(next)?.node || null : null);
    rec.partOrder.splice(i, 0, key);
    p.node = node;
    this.dirtyWindow = true;
  }

  renderDiffs() {
    this.dirtyDiffs = false;
    const has = this.diffs !== undefined && !(Array.isArray(this.diffs) && this.diffs.length === 0);
    this.diffBox.classList.toggle("hidden", !has);
    this.diffBody.replaceChildren(has ? renderDiffs(this.diffs) : el("span"));
  }

  renderEvents() {
    this.dirtyEvents = false;
    this.eventList.replaceChildren(...this.events.map((e) => renderEvent(e.at, e.body)));
    this.eventBox.classList.toggle("hidden", this.events.length === 0);
    this.eventNote.classList.toggle("hidden", this.eventsDropped === 0 && this.complete);
    this.eventNote.textContent = this.eventsDropped ? `${this.eventsDropped} earlier events are not shown.` : "Earlier events are not loaded.";
  }

  renderOther(id) {
    const o = this.others.get(id);
    if (!o) return;
    const node = o.deleted ? null : el("div", "other", el("div", "muted", o.kind + (o.key ? " " + o.key : "")), plainBody(o.body));
    if (o.node) o.node.remove();
    o.node = node;
    if (node) this.otherBox.append(node);
    else this.others.delete(id);
    this.otherBox.classList.toggle("hidden", this.others.size === 0);
  }
}

function cmpStr(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpMsg(a, b) {
  if (!b) return 1;
  return a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : cmpStr(a[1], b[1]);
}

// bsearch returns the first index of sorted arr whose element is not
// less than x.
function bsearch(arr, x, cmp) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(arr[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// timeline.js: the messages in order, and the window of them the page
// keeps in the DOM. Only the messages in the window [lo, hi) of the
// sorted order have nodes on the page, and the window holds at most
// maxWeight messages-and-parts, so a session of any length costs the
// browser what a screenful or two costs. The window follows the end
// while the reader is at the end (new messages appear and the page
// scrolls with them); scrolling near its top widens it upward (and asks
// for older ops once the window reaches the oldest message loaded),
// scrolling near its bottom widens it downward, and the side away from
// the reader is trimmed. As opencode's session timeline does, it keeps
// the message the reader looks at where it is on the screen while
// messages come and go above it.

import { el } from "./dom.js";

const maxWeight = 600; // messages + parts kept in the DOM
const step = 12; // messages added to the window per scroll
const margin = 1.5; // screens of content kept beyond the viewport

// gestureAt is when the reader last moved the page by hand.
let gestureAt = -Infinity;
for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
  addEventListener(type, () => (gestureAt = performance.now()), { passive: true });
}

export class Timeline {
  // box holds the message nodes; show(rec) fills a message's node when
  // it enters the window, hide(rec) empties it when it leaves;
  // needOlder() asks for older ops.
  constructor(box, hooks) {
    this.box = box;
    this.hooks = hooks;
    this.order = [];
    this.lo = 0;
    this.hi = 0;
    this.follow = true;
    this.up = false; // the reader last scrolled up: trim the bottom
    this.lastY = 0;
    this.shown = new Set();
    this.more = el("p", "muted more hidden");
    this.box.before(this.more);
  }

  // place inserts rec at index i of the order.
  place(rec, i) {
    this.order.splice(i, 0, rec);
    if (i < this.lo || (i === this.lo && this.lo > 0)) {
      this.lo++;
      this.hi++;
    } else if (i < this.hi || this.follow || this.hi === 0) this.hi++;
  }

  // unplace removes rec from the order.
  unplace(rec) {
    const i = this.order.indexOf(rec);
    if (i < 0) return;
    this.order.splice(i, 1);
    if (i < this.lo) this.lo--;
    if (i < this.hi) this.hi--;
  }

  inWindow(rec) {
    return this.shown.has(rec);
  }

  weight(i) {
    return 1 + this.order[i].parts.size;
  }

  // fit bounds the window: it ends at the last message when following,
  // and sheds messages from the side away from the reader. While
  // following, the reader is at the end, so only the top is shed, even
  // when the page last moved up (trimming the top scrolls the page up
  // by itself): shedding the end would drop the newest message.
  fit(keepTop) {
    const n = this.order.length;
    if (this.follow) this.hi = n;
    this.hi = Math.min(this.hi, n);
    this.lo = Math.max(0, Math.min(this.lo, this.hi));
    if (this.follow && this.lo === this.hi) this.lo = Math.max(0, n - step);
    let w = 0;
    for (let i = this.lo; i < this.hi; i++) w += this.weight(i);
    while (w > maxWeight && this.hi - this.lo > 1) {
      if (keepTop && !this.follow) w -= this.weight(--this.hi);
      else w -= this.weight(this.lo++);
    }
    if (!this.follow || this.lo === 0) return;
    // While following, fill upward to maxWeight.
    while (this.lo > 0 && w + this.weight(this.lo - 1) <= maxWeight) w += this.weight(--this.lo);
  }

  // sync makes the DOM hold exactly the window, keeping the reader's
  // place (or the end, when following).
  sync(complete) {
    this.fit(this.up);
    const anchor = this.anchor();
    const want = this.order.slice(this.lo, this.hi);
    const was = this.shown;
    this.shown = new Set(want);
    for (const rec of was) {
      if (this.shown.has(rec)) continue;
      rec.node.remove();
      this.hooks.hide(rec);
    }
    let prev = null;
    for (const rec of want) {
      if (!was.has(rec)) this.hooks.show(rec);
      const next = prev ? prev.nextSibling : this.box.firstChild;
      if (next !== rec.node) this.box.insertBefore(rec.node, next);
      prev = rec.node;
    }
    this.note(complete);
    this.restore(anchor);
  }

  note(complete) {
    const hidden = this.lo;
    this.more.classList.toggle("hidden", hidden === 0 && complete);
    this.more.textContent = hidden > 0 ? `${hidden} earlier messages: scroll up to see them.` : "Earlier messages: scroll up to load them.";
  }

  // anchor is the first message on screen and its offset from the top.
  anchor() {
    if (this.follow) return null;
    for (const rec of this.shown) {
      const r = rec.node.getBoundingClientRect();
      if (r.bottom > 0) return { rec, top: r.top };
    }
    return null;
  }

  restore(anchor) {
    if (this.follow) this.stick();
    else if (anchor && anchor.rec.node.isConnected) this.scrollBy(anchor.rec.node.getBoundingClientRect().top - anchor.top);
  }

  // stick scrolls the last message's end into view while following.
  stick() {
    if (!this.follow) return;
    const gap = this.box.getBoundingClientRect().bottom - window.innerHeight;
    if (gap > 0) this.scrollBy(gap);
  }

  // scrollBy scrolls the page and remembers where to, so that scrolled
  // tells the page's own scrolling from the reader's.
  scrollBy(dy) {
    if (dy !== 0) window.scrollBy(0, dy);
    this.lastY = window.scrollY;
  }

  // scrolled moves the window after the reader scrolled; it answers true
  // when the DOM must change.
  scrolled(complete) {
    const r = this.box.getBoundingClientRect();
    const h = window.innerHeight;
    const wasFollowing = this.follow;
    const y = window.scrollY;
    const up = y < this.lastY - 1;
    if (y !== this.lastY) this.up = up;
    this.lastY = y;
    // At the end the page follows, whichever way the page moved (trimming
    // the window's top can pull the page up under the reader).
    // Only the reader's own gesture (wheel, touch, key, pointer) stops
    // following, as in opencode's timeline.
    if (this.hi === this.order.length && r.bottom <= h + 120) this.follow = true;
    else if (up && performance.now() - gestureAt < 1000) this.follow = false;
    // While following, fit already fills the window upward; widening it
    // here would shed its end.
    if (!this.follow && r.top > -h * margin && this.lo > 0) {
      this.lo = Math.max(0, this.lo - step);
      this.fit(true);
      return true;
    }
    if (r.top > -h * margin && !complete) this.hooks.needOlder();
    if (r.bottom < h * (1 + margin) && this.hi < this.order.length) {
      this.hi = Math.min(this.order.length, this.hi + step);
      this.fit(false);
      return true;
    }
    return this.follow !== wasFollowing && this.follow;
  }
}

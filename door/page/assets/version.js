// version.js: which of two entries of one (kind, key) the page keeps. It
// ports the vat's version rule (store/apply/version.go, docs/design.md
// §5) so the page agrees with the state: it reads ops newest first while
// it fills in older messages, and live ops may carry an older version
// than the one shown. A body's stamp is the largest number in its
// top-level "time" object and in its "state" object's "time" object;
// the larger stamp wins, at equal stamps 0 the later op wins, at equal
// non-zero stamps the longer body. Two deviations, both documented in
// docs/guide.md: a body's length is that of its JSON as the page
// re-serialises it, and where the vat breaks the last tie by the
// bodies' SHA-256, the page keeps the later op. A delete removes the
// entity whatever its version; an op after it starts the key afresh.

// stamp is the stamp of a decoded body.
export function stamp(body) {
  if (!isObj(body)) return 0;
  let best = largest(body.time);
  if (isObj(body.state)) best = Math.max(best, largest(body.state.time));
  return best;
}

function largest(obj) {
  let best = 0;
  if (!isObj(obj)) return best;
  for (const v of Object.values(obj)) if (typeof v === "number" && v > best) best = v;
  return best;
}

function isObj(x) {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

// versionOf is what the rule reads of an entry: {cursor, del, stamp, size}.
export function versionOf(e) {
  const body = e.delete ? null : e.body;
  let size = 0;
  try {
    size = body === null || body === undefined ? 0 : JSON.stringify(body).length;
  } catch {
    size = 0;
  }
  return { cursor: Number(e.cursor) || 0, del: !!e.delete, stamp: e.delete ? 0 : stamp(body), size };
}

// supersedes reports whether entry version v replaces cur, whatever
// order the two were read in. A snapshot entity (no cursor) always does.
export function supersedes(v, cur) {
  if (!cur) return true;
  const later = v.cursor === 0 || v.cursor > cur.cursor;
  if (v.del || cur.del) return later;
  const [newer, older, flip] = later ? [v, cur, false] : [cur, v, true];
  let won;
  if (newer.stamp !== older.stamp) won = newer.stamp > older.stamp;
  else if (newer.stamp === 0) won = true;
  else if (newer.size !== older.size) won = newer.size > older.size;
  else won = true;
  return flip ? !won : won;
}

// Versions remembers, per (kind, key), the version the page shows and
// the cursor of the newest delete read, so an older op read later can
// neither undo a delete nor replace a newer version.
export class Versions {
  constructor() {
    this.m = new Map();
  }

  // admit reports whether entry e changes what the page shows, and
  // records it when it does.
  admit(e) {
    const id = e.kind + "\u0000" + e.key;
    const v = versionOf(e);
    const cur = this.m.get(id) || { v: null, floor: 0 };
    if (v.cursor !== 0 && v.cursor < cur.floor) return false;
    if (v.del) cur.floor = Math.max(cur.floor, v.cursor);
    if (!supersedes(v, cur.v)) {
      this.m.set(id, cur);
      return false;
    }
    cur.v = v;
    this.m.set(id, cur);
    return true;
  }
}

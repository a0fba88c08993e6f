// dom.js: the only way the page builds elements. Every piece of data
// becomes a text node (textContent / createTextNode): nothing the page
// shows is ever parsed as HTML.

// el creates an element with a class and children (strings become text
// nodes; null and undefined are skipped).
export function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

// maxText bounds the characters shown of one string, so that a huge
// tool output does not stall the page.
const maxText = 20000;

// text returns a <pre>/<div> holding s, cut at maxText with a note.
export function textBlock(tag, cls, s) {
  s = String(s);
  if (s.length <= maxText) return el(tag, cls, s);
  return el(tag, cls, s.slice(0, maxText), el("span", "cut", `… (${s.length - maxText} more characters)`));
}

// json renders any value as indented JSON text.
export function json(v) {
  return textBlock("pre", "json", pretty(v));
}

// pretty is JSON.stringify that survives bigints, Dates and cycles.
export function pretty(v) {
  try {
    const s = JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x), 2);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

// when formats a time: a Date, or Unix milliseconds.
export function when(t) {
  const d = t instanceof Date ? t : typeof t === "number" ? new Date(t) : null;
  if (!d || Number.isNaN(d.getTime()) || d.getTime() <= 0) return "";
  return d.toLocaleString();
}

// ms returns Unix milliseconds of a Date or number, or NaN.
export function ms(t) {
  if (t instanceof Date) return t.getTime();
  return typeof t === "number" ? t : NaN;
}

// str returns v if it is a non-empty string, else "".
export function str(v) {
  return typeof v === "string" ? v : "";
}

// isObj reports whether v is a plain object (not an array, not null).
export function isObj(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
}

// details wraps children under a <summary>.
export function details(summary, open, ...children) {
  const d = el("details", null, el("summary", null, summary), ...children);
  d.open = !!open;
  return d;
}

// diffBlock shows a unified diff, each line coloured by its first
// character.
export function diffBlock(text) {
  const pre = el("pre", "diff");
  const lines = String(text).replace(/\n$/, "").split("\n");
  const shown = lines.length > 4000 ? lines.slice(0, 4000) : lines;
  for (const line of shown) {
    const c = line[0];
    const cls = line.startsWith("+++") || line.startsWith("---") ? "d-file"
      : c === "+" ? "d-add" : c === "-" ? "d-del" : c === "@" ? "d-hunk" : null;
    pre.append(el("span", cls, line + "\n"));
  }
  if (shown !== lines) pre.append(el("span", "cut", `… (${lines.length - shown.length} more lines)`));
  return pre;
}

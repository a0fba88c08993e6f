// parts.js: how each entity of a session looks. opencode's shapes (a
// message's info, its typed parts, the session's diffs, events), as
// opencode and `sharevat import` write them, get the rich view. Any other
// body still reads: its text-like fields (text, content, message, …) as
// text, and the rest as collapsed JSON.

import { el, json, textBlock, details, diffBlock, when, str, isObj, pretty } from "./dom.js";

// renderPart returns the element showing one part.
export function renderPart(key, body) {
  const type = isObj(body) ? str(body.type) : "";
  const render = partRenderers[type] || unknownPart;
  const node = render(body);
  node.classList.add("part", "part-" + (type.replace(/[^a-z0-9-]/g, "") || "unknown"));
  node.dataset.key = key;
  return node;
}

const partRenderers = {
  text: (b) => el("div", null, textBlock("div", "text", str(b.text)), b.synthetic ? el("span", "muted", " (added by the agent)") : null),
  reasoning: (b) => el("div", null, details("Reasoning", false, textBlock("div", "text", str(b.text)))),
  tool: toolPart,
  file: filePart,
  patch: (b) => el("div", null, el("span", "label", "Patch "), el("code", null, str(b.hash).slice(0, 12)),
    Array.isArray(b.files) ? el("ul", "files", ...b.files.map((f) => el("li", null, String(f)))) : null),
  "step-start": () => el("div", "step muted", "step started"),
  "step-finish": stepFinish,
  agent: (b) => el("div", "muted", "agent: " + str(b.name)),
  subtask: (b) => el("div", null, el("span", "label", "Subtask "), str(b.description), json(b)),
  retry: (b) => el("div", "muted", "retry " + String(b.attempt ?? ""), b.error ? json(b.error) : null),
  snapshot: (b) => el("div", "muted", "snapshot " + str(b.snapshot).slice(0, 12)),
  compaction: () => el("div", "muted", "the conversation was compacted here"),
};

// toolPart shows a tool call: its name, state, input, output or error,
// and the diff an edit tool reports in its metadata.
function toolPart(b) {
  const st = isObj(b.state) ? b.state : {};
  const status = str(st.status) || "pending";
  const head = el("div", "tool-head", el("span", "tool-name", str(b.tool) || "tool"),
    el("span", "badge st-" + status.replace(/[^a-z]/g, ""), status), str(st.title) ? el("span", "tool-title", str(st.title)) : null);
  const node = el("div", null, head);
  if (st.input !== undefined) node.append(details("Input", false, json(st.input)));
  if (st.output !== undefined && st.output !== "") {
    node.append(details("Output", true, typeof st.output === "string" ? textBlock("pre", "output", st.output) : json(st.output)));
  }
  if (st.error !== undefined) node.append(textBlock("pre", "error", typeof st.error === "string" ? st.error : pretty(st.error)));
  const diff = isObj(st.metadata) ? st.metadata.diff : undefined;
  if (typeof diff === "string" && diff) node.append(details("Diff", true, diffBlock(diff)));
  return node;
}

function filePart(b) {
  const src = isObj(b.source) ? str(b.source.path) : "";
  return el("div", null, el("span", "label", "File "), el("code", null, str(b.filename) || src || str(b.url)),
    str(b.mime) ? el("span", "muted", " " + b.mime) : null);
}

function stepFinish(b) {
  const t = isObj(b.tokens) ? b.tokens : {};
  const bits = [];
  if (str(b.reason)) bits.push(b.reason);
  if (typeof t.input === "number") bits.push(`${t.input} in / ${t.output ?? 0} out tokens`);
  if (typeof b.cost === "number") bits.push("$" + b.cost.toFixed(4));
  return el("div", "step muted", "step finished" + (bits.length ? ": " + bits.join(", ") : ""));
}

function unknownPart(b) {
  return plainBody(b, linkFields);
}

// textFields are the fields a body's own text is looked for in, in order.
const textFields = ["text", "content", "message", "body", "value", "summary", "title", "description"];

// textOf returns the readable text of a body: the body itself when it is
// a string; else its first text-like field holding a string, or a list
// of strings or {text} objects (as chat APIs write content); else "".
export function textOf(b) {
  if (typeof b === "string") return b;
  if (!isObj(b)) return "";
  for (const f of textFields) {
    const v = b[f];
    if (typeof v === "string" && v !== "") return v;
    if (Array.isArray(v)) {
      const bits = v.map((x) => (typeof x === "string" ? x : isObj(x) ? str(x.text) : "")).filter(Boolean);
      if (bits.length) return bits.join("\n");
    }
  }
  return "";
}

// plainBody shows a body of no known shape, less the fields in skip: its
// text, if it has any, and the rest as collapsed JSON (left out when the
// text was all there was).
export function plainBody(b, skip = []) {
  const rest = isObj(b) ? Object.fromEntries(Object.entries(b).filter(([k]) => !skip.includes(k))) : b;
  const text = textOf(rest);
  const node = el("div", "plain");
  if (text) node.append(textBlock("div", "text", text));
  if (!coveredByText(rest, text)) node.append(details(preview(rest), false, json(rest)));
  return node;
}

// coveredByText reports whether a body's text says all of it.
function coveredByText(rest, text) {
  if (typeof rest === "string" || rest === null || rest === undefined) return true;
  if (!isObj(rest)) return false;
  const keys = Object.keys(rest);
  if (keys.length === 0) return true;
  if (keys.length !== 1 || text === "") return false;
  const v = rest[keys[0]];
  return typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string" || (isObj(x) && textOnly(x))));
}

// textOnly reports whether a list item is {text} or {type: "text", text}.
function textOnly(x) {
  return typeof x.text === "string" && Object.keys(x).every((k) => k === "text" || (k === "type" && x.type === "text"));
}

// linkFields are the fields a part names its message by, in the order
// they are looked at: opencode's messageID, and the names people use.
const linkFields = ["messageID", "messageId", "message_id", "message"];

// partMessage returns the key of the message a part belongs to, or "".
export function partMessage(body) {
  if (!isObj(body)) return "";
  for (const f of linkFields) if (typeof body[f] === "string" && body[f] !== "") return body[f];
  return "";
}

// preview is one line of a value's JSON, cut short: the summary of its
// collapsed view.
function preview(v) {
  const s = pretty(v).replace(/\s+/g, " ");
  return s.length > 80 ? s.slice(0, 80) + "…" : s;
}

// opencodeMessageFields are a message info's fields that messageHead
// shows or that say nothing to a reader; any other field of a message is
// shown by plainBody.
const opencodeMessageFields = ["id", "sessionID", "role", "time", "agent", "model", "modelID", "providerID", "mode",
  "path", "cost", "tokens", "system", "parentID", "finish", "summary", "error"];

// messageView returns a message's header and its own content. A message
// whose body has not arrived (only its parts have, or they name a
// message that never comes) is headed as the parts it holds.
export function messageView(key, body) {
  if (body === null || body === undefined) return el("div", "msg-head muted", key ? "parts of " + key : "parts");
  if (!isObj(body)) return el("div", null, el("div", "msg-head", el("span", "role", "message")), plainBody(body));
  const head = messageHead(body);
  const own = Object.keys(body).filter((k) => !opencodeMessageFields.includes(k));
  if (own.length === 0) return head;
  return el("div", null, head, plainBody(body, opencodeMessageFields));
}

// messageHead returns the header line of a message: role, agent, model,
// time, cost.
function messageHead(body) {
  const role = str(body.role) || "message";
  const model = isObj(body.model) ? body.model : body;
  const modelName = [str(model.providerID), str(model.modelID)].filter(Boolean).join("/");
  const t = isObj(body.time) ? body.time.created : undefined;
  const cost = typeof body.cost === "number" && body.cost > 0 ? "$" + body.cost.toFixed(4) : "";
  const bits = [str(body.agent), modelName, when(t), cost].filter(Boolean);
  const head = el("div", "msg-head", el("span", "role", role), el("span", "muted", bits.join(" · ")));
  if (isObj(body.error)) head.append(textBlock("div", "error", pretty(body.error)));
  return head;
}

// renderDiffs shows a session_diff body: opencode's FileDiff list.
export function renderDiffs(body) {
  const box = el("div", "diffs");
  if (!Array.isArray(body)) {
    box.append(json(body));
    return box;
  }
  for (const d of body) {
    if (!isObj(d)) {
      box.append(json(d));
      continue;
    }
    const summary = `${str(d.file) || "file"}  +${d.additions ?? 0} −${d.deletions ?? 0}`;
    box.append(details(summary, false, diffBlock(lineDiff(str(d.before), str(d.after)))));
  }
  return box;
}

// lineDiff returns a diff of two texts, one line per line with "+", "-"
// or " " in front (longest common subsequence; past 300,000 line pairs,
// the old text and then the new one).
export function lineDiff(a, b) {
  const x = a === "" ? [] : a.replace(/\n$/, "").split("\n");
  const y = b === "" ? [] : b.replace(/\n$/, "").split("\n");
  if (x.length * y.length > 300000) return [...x.map((l) => "-" + l), ...y.map((l) => "+" + l)].join("\n");
  const n = x.length, m = y.length;
  const L = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      L[i * (m + 1) + j] = x[i] === y[j] ? L[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(L[(i + 1) * (m + 1) + j], L[i * (m + 1) + j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push(" " + x[i++]);
      j++;
    } else if (j < m && (i === n || L[i * (m + 1) + j + 1] >= L[(i + 1) * (m + 1) + j])) {
      out.push("+" + y[j++]);
    } else {
      out.push("-" + x[i++]);
    }
  }
  return out.join("\n");
}

// renderEvent shows one event: its time, type, and its properties
// (opencode's todo.updated as a checklist).
export function renderEvent(at, body) {
  const type = isObj(body) ? str(body.type) : "";
  const node = el("li", "event", el("span", "muted", when(at) + " "), el("span", "ev-type", type || "event"));
  const props = isObj(body) ? body.properties : undefined;
  if (type === "todo.updated" && isObj(props) && Array.isArray(props.todos)) {
    node.append(el("ul", "todos", ...props.todos.map(todoItem)));
  } else if (isObj(body) && type) {
    const rest = { ...body };
    delete rest.type;
    if (Object.keys(rest).length) node.append(plainBody(rest));
  } else {
    node.append(plainBody(body));
  }
  return node;
}

function todoItem(t) {
  if (!isObj(t)) return el("li", null, pretty(t));
  const done = t.status === "completed";
  return el("li", done ? "todo done" : "todo", (done ? "☑ " : "☐ ") + str(t.content), el("span", "muted", " " + str(t.status)));
}

// Compares `opencode export` (JSON on stdin) with the vat's share of the
// same session: every item of the export must be in the share's state
// (its snapshot: the newest version of each item, whatever order the
// writers' ops came in) at its final version, field by field, and no op
// id may be in the log twice. Prints one JSON line:
// {items, missing, stale, duplicateOpIds, opIds} and exits 1 on a loss.
// Usage: opencode export <id> | node compare.mjs <vat url> <owner token>
import { newWebSocketRpcSession } from "capnweb";
import { WebSocket } from "ws";
import { isDeepStrictEqual } from "node:util";

globalThis.WebSocket ??= WebSocket;

/** Reads stdin whole. */
async function stdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads the snapshot and every op of the share with token. */
async function readAll(url, token) {
  const vault = newWebSocketRpcSession(url.replace(/^http/, "ws") + "/capnweb");
  try {
    const r = await vault.restore(token);
    const reader = await r.share.reader();
    const { entities } = await reader.snapshot();
    const out = [];
    let from = 0;
    for (;;) {
      const { ops, head } = await reader.read(from, 1000);
      out.push(...ops);
      if (ops.length === 0 || out.length >= Number(head)) return { entities, log: out };
      from = Number(ops[ops.length - 1].cursor) + 1;
    }
  } finally {
    vault[Symbol.dispose]();
  }
}

const [url, token] = process.argv.slice(2);
const text = await stdin();
// The vat's privacy guard (redact, the default) stores a sharevat token
// in a body as [REDACTED:sharevat-token] (privacy/rules.go): a session
// shared through the door holds its link, /share/svt1_…, in share.url.
// The export is compared as the vat stores it.
const redacted = text.replace(/svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}/g, "[REDACTED:sharevat-token]");
const exp = JSON.parse(redacted.slice(redacted.indexOf("{")));
const { entities, log } = await readAll(url, token);
const latest = new Map();
const latestEntry = new Map();
const ids = new Map();
for (const e of entities) {
  latest.set(`${e.kind}\u0000${e.key}`, e.body);
  latestEntry.set(`${e.kind}\u0000${e.key}`, e);
}
const batchOf = new Map(log.map((e) => [Number(e.cursor), e.batchId]));
for (const e of log) ids.set(e.opId, (ids.get(e.opId) ?? 0) + 1);
const want = [["session", exp.info.id, exp.info]];
for (const m of exp.messages) {
  want.push(["message", m.info.id, m.info]);
  for (const p of m.parts) want.push(["part", `${p.messageID}/${p.id}`, p]);
}
const missing = [];
const stale = [];
for (const [kind, key, data] of want) {
  const got = latest.get(`${kind}\u0000${key}`);
  if (got === undefined) missing.push(`${kind} ${key}`);
  else if (!isDeepStrictEqual(got, data)) {
    stale.push(`${kind} ${key}`);
    const e = latestEntry.get(`${kind}\u0000${key}`);
    const fields = [...new Set([...Object.keys(got ?? {}), ...Object.keys(data)])].filter((f) => !isDeepStrictEqual(got?.[f], data[f]));
    console.error(`stale ${kind} ${key}: the state holds the op of batch ${batchOf.get(Number(e.cursor))} at cursor ${e.cursor}; differs in ${fields.map((f) => `${f}: ${JSON.stringify(got?.[f])} (export: ${JSON.stringify(data[f])})`).join("; ")}`);
  }
}
const duplicateOpIds = [...ids.values()].filter((n) => n > 1).length;
console.log(JSON.stringify({ items: want.length, missing, stale, duplicateOpIds, opIds: ids.size }));
process.exitCode = missing.length + stale.length + duplicateOpIds > 0 ? 1 : 0;

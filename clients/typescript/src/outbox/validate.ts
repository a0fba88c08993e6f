// What the outbox checks before it stores an op: the body is JSON, and the
// op passes the server's own checks (store/apply.CheckOp) under the limits
// the server reports, worded as the server words them.

import { SharevatError } from "./errors.js";
import type { Json, Limits, OutboxOp, StoredOp } from "./types.js";

const STATE_KINDS = new Set(["session", "message", "part", "session_diff", "model"]);
const utf8 = new TextEncoder();

/** Whether s has no lone surrogate, so it is valid UTF-8 once encoded. */
function wellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** The byte length of s in UTF-8. */
export function bytes(s: string | undefined): number {
  return s === undefined ? 0 : utf8.encode(s).length;
}

/** What op counts against a batch's byte budget, as the server counts it (sharevat.Op.Size). */
export function opSize(op: StoredOp): number {
  let n = bytes(op.id) + bytes(op.kind) + bytes(op.key) + bytes(op.body);
  for (const d of op.deps ?? []) n += bytes(d);
  return n;
}

/**
 * Turns an enqueued op into the stored form, with id as its op id. The body
 * becomes its compact JSON text; a body that is not JSON is refused
 * ("invalid").
 */
export function toStored(op: OutboxOp, id: string): StoredOp {
  if (op === null || typeof op !== "object") throw new SharevatError("invalid", `op ${id} is not an object`);
  const s: StoredOp = { id, kind: String(op.kind ?? "") };
  if (op.key) s.key = String(op.key);
  if (op.body !== undefined) s.body = bodyText(op.body, id);
  if (op.delete) s.del = true;
  if (op.dependsOn?.length) s.deps = op.dependsOn.map(String);
  if (op.expectedCursor !== undefined) {
    if (!Number.isSafeInteger(op.expectedCursor) || op.expectedCursor < 0) {
      throw new SharevatError("invalid", `op ${id}: expected cursor ${op.expectedCursor} is not a whole number ≥ 0`);
    }
    s.expect = op.expectedCursor;
  }
  return s;
}

/** The compact JSON text of body: a JSON value, or a Uint8Array holding JSON text. */
function bodyText(body: Json | Uint8Array, id: string): string {
  if (body instanceof Uint8Array) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(body);
      JSON.parse(text);
    } catch {
      throw new SharevatError("invalid", `op ${id}: body is not valid JSON`);
    }
    return text;
  }
  const why = notJson(body, new Set());
  if (why) throw new SharevatError("invalid", `op ${id}: body is not a JSON value (${why})`);
  return JSON.stringify(body);
}

/** Why v is not a JSON value that JSON.stringify keeps as it is, or "". */
function notJson(v: unknown, seen: Set<object>): string {
  switch (typeof v) {
    case "string":
    case "boolean":
      return "";
    case "number":
      return Number.isFinite(v) ? "" : `${v} is not a JSON number`;
    case "object":
      break;
    default:
      return `a ${typeof v} is not JSON`;
  }
  if (v === null) return "";
  if (seen.has(v)) return "it is circular";
  seen.add(v);
  const proto = Object.getPrototypeOf(v);
  if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return "only plain objects and arrays are JSON";
  for (const x of Object.values(v)) {
    const why = notJson(x, seen);
    if (why) return why;
  }
  seen.delete(v);
  return "";
}

/**
 * Runs the server's checks of one op (store/apply.CheckOp) under lim and
 * returns the rejection it would give, or undefined.
 */
export function checkOp(op: StoredOp, lim: Limits): { reason: "invalid" | "tooLarge"; message: string } | undefined {
  const idLen = bytes(op.id);
  if (op.id === "") return { reason: "invalid", message: "op id is empty" };
  if (idLen > lim.maxOpIdLen) return { reason: "invalid", message: `op id is ${idLen} bytes; limit is ${lim.maxOpIdLen}` };
  if (!wellFormed(op.id)) return { reason: "invalid", message: "op id is not valid UTF-8" };
  const body = bytes(op.body);
  const key = bytes(op.key);
  const deps = op.deps?.length ?? 0;
  if (body > lim.maxBodyBytes) return { reason: "tooLarge", message: `body is ${body} bytes; limit is ${lim.maxBodyBytes}` };
  if (key > lim.maxKeyLen) return { reason: "tooLarge", message: `key is ${key} bytes; limit is ${lim.maxKeyLen}` };
  if (deps > lim.maxDependsOn) return { reason: "tooLarge", message: `op has ${deps} dependencies; limit is ${lim.maxDependsOn}` };
  const shape = checkShape(op);
  if (shape) return { reason: "invalid", message: shape };
  const n = opSize(op);
  if (n > lim.maxBatchBytes) return { reason: "tooLarge", message: `op is ${n} bytes; limit is ${lim.maxBatchBytes} per batch` };
  return undefined;
}

/** store/apply.CheckShape: kind, key, delete and body against the kind's rules. */
function checkShape(op: StoredOp): string {
  const state = STATE_KINDS.has(op.kind);
  if (!state && op.kind !== "event") {
    return `unknown kind ${JSON.stringify(op.kind)} (the kinds are session, message, part, session_diff, model and event)`;
  }
  if (state && !op.key) return `kind ${JSON.stringify(op.kind)} needs a key`;
  if (!state && (op.key || op.del)) return `kind ${JSON.stringify(op.kind)} takes no key and no delete`;
  if (op.key && !wellFormed(op.key)) return "key is not valid UTF-8";
  if (op.del && !op.body) return "";
  if (!op.body) return `an op of kind ${JSON.stringify(op.kind)} needs a body (a JSON value) unless it is a delete`;
  return "";
}

/** Refuses op with the server's words when it fails checkOp under lim. */
export function mustPass(op: StoredOp, lim: Limits): void {
  const bad = checkOp(op, lim);
  if (bad) throw new SharevatError(bad.reason, `op ${op.id}: ${bad.message}`);
}

// @ts-check
// The opencode item → op mapping, shared with the vat's opencode door
// (docs/opencode.md, "Item mapping"): one share sync item
// {type: T, data: D} becomes one op with kind T, a key derived from D,
// body = JSON.stringify(D) and the op id
// "opencode:<kind>:<key>:" + the first 12 hex digits of SHA-256(body).
import { createHash } from "node:crypto";

/** The item types opencode's share sync sends; any other is refused. */
export const KINDS = ["session", "message", "part", "session_diff", "model"];

/**
 * itemToOp maps one opencode share item onto a sharevat op. sessionID is
 * the session the item belongs to (the key of session_diff and model).
 * @param {string} type
 * @param {any} data
 * @param {string} sessionID
 * @returns {{opId: string, kind: string, key: string, body: string}}
 */
export function itemToOp(type, data, sessionID) {
  let key;
  switch (type) {
    case "session":
    case "message":
      key = String(data.id);
      break;
    case "part":
      key = `${data.messageID}/${data.id}`;
      break;
    case "session_diff":
    case "model":
      key = sessionID;
      break;
    default:
      throw new Error(`opencode item type ${JSON.stringify(type)} is not one of ${KINDS.join(", ")}`);
  }
  const body = JSON.stringify(data);
  const digest = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { opId: `opencode:${type}:${key}:${digest}`, kind: type, key, body };
}

/**
 * eventToItem turns an opencode bus event into the share item opencode's
 * own share client would send for it, or null for events that carry none.
 * @param {{type: string, properties?: any}} event
 * @returns {{sessionID: string, type: string, data: any} | null}
 */
export function eventToItem(event) {
  const p = event.properties ?? {};
  switch (event.type) {
    case "session.updated":
      return p.info ? { sessionID: p.info.id, type: "session", data: p.info } : null;
    case "message.updated":
      return p.info ? { sessionID: p.info.sessionID, type: "message", data: p.info } : null;
    case "message.part.updated":
      return p.part ? { sessionID: p.part.sessionID, type: "part", data: p.part } : null;
    case "session.diff":
      return p.sessionID ? { sessionID: p.sessionID, type: "session_diff", data: p.diff ?? [] } : null;
    default:
      return null;
  }
}

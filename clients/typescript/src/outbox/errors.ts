// The outbox's errors are the package's SharevatError (../errors.ts): a
// wire code and a message that never holds a token. These helpers read
// the code of any error a flush meets.

import { SharevatError, isPermanent } from "../errors.js";
import type { ErrorCode } from "../wire.js";

export { SharevatError, isPermanent, type ErrorCode };

/** Returns the wire code of err: its `code`, or the text before the first ": " of its message. */
export function codeOf(err: unknown): string {
  if (err && typeof err === "object" && typeof (err as { code?: unknown }).code === "string") {
    return (err as { code: string }).code;
  }
  const msg = err instanceof Error ? err.message : String(err);
  const i = msg.indexOf(": ");
  return i > 0 ? msg.slice(0, i) : "";
}

/** The message of err, never undefined. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// The error the outbox throws: a code of the wire (docs/design.md §9) and
// a message that never holds a token.

/** Error codes of the wire, as `SharevatError.code`. */
export type ErrorCode =
  | "unauthorized"
  | "permissionDenied"
  | "revoked"
  | "invalid"
  | "conflict"
  | "notFound"
  | "tooLarge"
  | "unavailable"
  | "internal"
  | "corrupt"
  | "compacted";

/** An error with a wire code; its message reads "<code>: <message>". */
export class SharevatError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = "SharevatError";
    this.code = code;
  }
}

/** The codes a retry cannot fix (client.IsPermanent): the token or the request is refused. */
const PERMANENT = new Set(["unauthorized", "revoked", "permissionDenied", "invalid", "tooLarge", "notFound"]);

/** Returns the wire code of err: its `code`, or the text before the first ": " of its message. */
export function codeOf(err: unknown): string {
  if (err && typeof err === "object" && typeof (err as { code?: unknown }).code === "string") {
    return (err as { code: string }).code;
  }
  const msg = err instanceof Error ? err.message : String(err);
  const i = msg.indexOf(": ");
  return i > 0 ? msg.slice(0, i) : "";
}

/** Reports whether err will not go away by retrying (revoked, unauthorized, no right, invalid, …). */
export function isPermanent(err: unknown): boolean {
  return PERMANENT.has(codeOf(err));
}

/** The message of err, never undefined. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

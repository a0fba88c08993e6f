// SharevatError: every error this package raises, with the wire's code.
import type { ErrorCode } from "./wire.js";

/**
 * Every code of the schema, in its order (schema/sharevat.capnp's header).
 * The object's type makes the compiler fail when a code of {@link ErrorCode}
 * is missing here or one here is not a code.
 */
const codeSet: Record<ErrorCode, true> = {
  unauthorized: true,
  permissionDenied: true,
  revoked: true,
  invalid: true,
  conflict: true,
  notFound: true,
  tooLarge: true,
  unavailable: true,
  internal: true,
  corrupt: true,
  compacted: true,
};

/** The wire's error codes (see {@link ErrorCode} for what each means). */
export const errorCodes: readonly ErrorCode[] = Object.freeze(Object.keys(codeSet) as ErrorCode[]);

/** Whether s is one of the wire's error codes. */
export function isErrorCode(s: unknown): s is ErrorCode {
  return typeof s === "string" && Object.prototype.hasOwnProperty.call(codeSet, s);
}

/** What a token looks like, so that no message this package makes can carry one. */
const tokenPattern = /svt1_[A-Za-z0-9_-]*/g;

/** text with anything token-shaped replaced by `svt1_<redacted>`. */
export function redact(text: string): string {
  return text.replace(tokenPattern, "svt1_<redacted>");
}

/**
 * The error of every failed call: `code` is the wire code ("revoked",
 * "unavailable", …), `detail` the server's words after it, and `message`
 * exactly `<code>: <detail>`, as the server words it over /rpc. A lost
 * connection is "unavailable". Never holds a token.
 */
export class SharevatError extends Error {
  /** The wire code. */
  readonly code: ErrorCode;
  /** The message without its code. */
  readonly detail: string;

  constructor(code: ErrorCode, detail: string, options?: { cause?: unknown }) {
    const clean = redact(detail);
    super(`${code}: ${clean}`, options);
    this.name = "SharevatError";
    this.code = code;
    this.detail = clean;
  }
}

/**
 * err as a SharevatError: a server error ("<code>: <message>" with a
 * `code`) keeps its code and words; anything else is "unavailable" when
 * lost says the connection is gone, else "internal".
 */
export function toSharevatError(err: unknown, lost = false): SharevatError {
  if (err instanceof SharevatError) return err;
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  const message = typeof e?.message === "string" ? e.message : String(err);
  if (isErrorCode(e?.code)) {
    const prefix = `${e.code}: `;
    return new SharevatError(e.code, message.startsWith(prefix) ? message.slice(prefix.length) : message);
  }
  if (lost) return new SharevatError("unavailable", `connection lost: ${message}`);
  return new SharevatError("internal", message);
}

/**
 * Whether err will not go away by retrying: the token is unauthorized,
 * revoked or lacks the right, or the request is invalid, too large or
 * names what does not exist. "unavailable" is not permanent: a vat whose
 * store is down answers a redeem with it, and the token may well be valid.
 * (The Go client's IsPermanent.)
 */
export function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case "unauthorized":
    case "revoked":
    case "permissionDenied":
    case "invalid":
    case "tooLarge":
    case "notFound":
      return true;
  }
  return false;
}

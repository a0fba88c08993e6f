// One-shot calls over Cap'n Web's HTTP batch: one POST to /capnweb, every
// call pipelined in it, no WebSocket kept open (docs/capnweb.md, "HTTP batch").
import { newHttpBatchRpcSession, type RpcStub } from "capnweb";
import { toSharevatError } from "./errors.js";
import type { AppendBatch } from "./log.js";
import { capnwebURL } from "./url.js";
import type { Ack, Cursor, LogEntry, Token, UInt64Input, Vault } from "./wire.js";

/**
 * A raw capnweb stub of the vat for one HTTP batch: make every call
 * (pipelining on answers not yet there) before awaiting any; the batch is
 * sent once the current task yields, and nothing after it is.
 */
export function httpBatch(url: string): RpcStub<Vault> {
  return newHttpBatchRpcSession<Vault>(capnwebURL(url, "http"));
}

/**
 * Redeems token and appends batch in one HTTP request (restore →
 * appender → append, the epoch pipelined from the restore when batch has
 * none). For a program that appends now and then and keeps no
 * connection; a rejection with "unavailable" leaves the outcome unknown,
 * as for {@link Appender.append}: send the same ops again.
 */
export async function appendOnce(url: string, token: Token, batch: AppendBatch): Promise<Ack> {
  const vault = httpBatch(url);
  try {
    const restored = vault.restore(token.trim());
    return await restored.share.appender().append({ ...batch, epoch: batch.epoch ?? restored.access.epoch });
  } catch (err) {
    throw toSharevatError(err, true);
  } finally {
    vault[Symbol.dispose]();
  }
}

/** Redeems token and reads one page of its log after fromCursor, in one HTTP request. */
export async function readOnce(url: string, token: Token, fromCursor: UInt64Input = 0, limit = 0): Promise<{ ops: LogEntry[]; head: Cursor }> {
  const vault = httpBatch(url);
  try {
    return await vault.restore(token.trim()).share.reader().read(fromCursor, limit);
  } catch (err) {
    throw toSharevatError(err, true);
  } finally {
    vault[Symbol.dispose]();
  }
}

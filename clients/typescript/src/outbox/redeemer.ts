// The package's Redeemer as an OutboxTarget, so that `outbox.flush(redeemer)`
// reads as the Go client's `Outbox.Flush(ctx, redeemer)`.

import { isPermanent } from "../errors.js";
import type { Redeemer } from "../redeemer.js";
import type { Appender } from "../log.js";
import type { Share } from "../share.js";
import type { OutboxSession, OutboxTarget } from "./target.js";
import type { Ack, Limits, WireBatch } from "./types.js";

interface Session extends OutboxSession {
  share: Share;
}

const targets = new WeakMap<Redeemer, OutboxTarget>();

/** The OutboxTarget of r (one per Redeemer): its live Share, an Appender of it, and r.fail after a failed send. */
export function redeemerTarget(r: Redeemer): OutboxTarget {
  let t = targets.get(r);
  if (!t) targets.set(r, (t = newTarget(r)));
  return t;
}

function newTarget(r: Redeemer): OutboxTarget {
  let current: Session | undefined;
  let last: { dial: boolean; err: unknown } | undefined;
  return {
    server: shownURL(r.url),
    async session(signal?: AbortSignal): Promise<OutboxSession> {
      let sh: Share;
      try {
        sh = await r.share(signal);
      } catch (e) {
        last = { dial: !isPermanent(e), err: e };
        throw e;
      }
      last = undefined;
      if (current?.share === sh) return current;
      let app: Promise<Appender> | undefined;
      current = {
        share: sh,
        shareId: sh.shareInfo.id,
        epoch: Number(sh.access.epoch),
        async append(b: WireBatch): Promise<Ack> {
          app ??= sh.appender();
          const a = await app.catch((e) => {
            app = undefined;
            throw e;
          });
          return (await a.append(b)) as unknown as Ack;
        },
        limits: () => sh.conn.limits() as Promise<Limits>,
      };
      return current;
    },
    fail(s: OutboxSession, err: unknown) {
      const sh = (s as Session).share;
      if (current?.share === sh) current = undefined;
      r.fail(sh, err);
    },
    lastFailure: () => last,
    close: () => r.close(),
  };
}

/** raw without any password in it. */
function shownURL(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = "xxxxx";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

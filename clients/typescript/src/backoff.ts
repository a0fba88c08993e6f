// Backoff with jitter and abortable sleeps, as the Go client's backoff.go.

/** The wait before retry n (from 0): lo·2^n, capped at hi. */
export function backoff(lo: number, hi: number, n: number): number {
  const d = lo * 2 ** Math.min(n, 16);
  return d > hi || !(d > 0) ? hi : d;
}

/** A random time between d/2 and d: full jitter in the upper half. */
export function jittered(d: number): number {
  return d / 2 + Math.random() * (d / 2);
}

/**
 * Resolves true after ms, or false as soon as any of signals aborts (at
 * once if one already has). Its timer is cleared either way, so a sleep
 * cut short keeps nothing alive.
 */
export function sleep(ms: number, ...signals: (AbortSignal | undefined)[]): Promise<boolean> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  if (live.some((s) => s.aborted)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    for (const s of live) s.addEventListener("abort", onAbort, { once: true });
  });
}

#!/usr/bin/env node
// @ts-check
// sharevat-opencode-flush: sends what the opencode plugin's outboxes hold
// (after a crash, or with opencode not running), with the plugin's
// settings from the environment (SHAREVAT_URL, SHAREVAT_TOKEN or
// SHAREVAT_TOKEN_FILE: a creation token; SHAREVAT_OPENCODE_DIR), for at most
// SHAREVAT_FLUSH_TIMEOUT seconds (default 60). Prints each session's id
// and link. Exits 0 when every outbox is empty, 1 when ops are left (the
// reason is logged), 2 on bad settings.
import { resolveSettings } from "../src/config.js";
import { Flusher } from "../src/flusher.js";

/** Flushes every session, prints each link, and returns the exit code. */
async function main() {
  let s;
  try {
    s = resolveSettings({}, process.env);
  } catch (err) {
    console.error(String(/** @type {any} */ (err)?.message ?? err));
    return 2;
  }
  if (!s.url || !s.token) {
    console.error("sharevat-opencode-flush: set SHAREVAT_URL and SHAREVAT_TOKEN (or SHAREVAT_TOKEN_FILE)");
    return 2;
  }
  const log = (/** @type {string} */ line) => console.error(line);
  const f = new Flusher({ url: s.url, token: s.token, dir: s.dir, log, keepAlive: true, debounceMs: 0 });
  const secs = Number(process.env.SHAREVAT_FLUSH_TIMEOUT || 60);
  /** @type {any} */
  let timer;
  await Promise.race([f.flushAll(), new Promise((r) => (timer = setTimeout(r, secs * 1000)))]);
  clearTimeout(timer);
  let left = 0;
  for (const id of f.sessionsOnDisk()) {
    const share = f.readShare(id);
    if (share) console.log(`${id}\t${share.link}`);
    if (f.pending(id) > 0) left++;
  }
  await f.close();
  if (left > 0) console.error(`sharevat-opencode-flush: ${left} session(s) still have unsent ops`);
  return left > 0 ? 1 : 0;
}

process.exit(await main()); // a flush stopped by the deadline may still hold timers

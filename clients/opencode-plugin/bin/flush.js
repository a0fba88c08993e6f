#!/usr/bin/env node
// @ts-check
// sharevat-opencode-flush: sends what the opencode plugin's outboxes hold
// (after a crash, or with opencode not running), with the plugin's
// settings from the environment (SHAREVAT_URL, SHAREVAT_TOKEN or
// SHAREVAT_TOKEN_FILE, SHAREVAT_OPENCODE_DIR). Exits 0 when every outbox
// is empty, 1 when ops are left (the reason is logged), 2 on bad settings.
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
  await f.flushAll();
  let left = 0;
  for (const id of f.sessionsOnDisk()) {
    const ob = f.outbox(id);
    const share = ob.readShare();
    if (share) console.log(`${id}\t${share.link}`);
    if (ob.hasPending()) left++;
  }
  f.close();
  if (left > 0) console.error(`sharevat-opencode-flush: ${left} session(s) still have unsent ops`);
  return left > 0 ? 1 : 0;
}

process.exitCode = await main();

// @ts-check
// The plugin's settings: plugin options first, then the environment.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { vatBaseURL } from "@sharevat/client";

/**
 * @typedef {object} Settings
 * @property {string} url the vat's base URL, http(s)://host:port[/prefix] (SHAREVAT_URL, option url: any form every sharevat client takes, docs/guide.md "The vat's URL")
 * @property {string} token a creation token of the vat's opencode door, `sharevat opencode-token mint` (SHAREVAT_TOKEN or the file SHAREVAT_TOKEN_FILE; options token, tokenFile)
 * @property {string} dir the outbox directory (SHAREVAT_OPENCODE_DIR, option dir)
 * @property {"all" | "shared"} sessions which sessions are shared (SHAREVAT_OPENCODE_SESSIONS, option sessions)
 */

/**
 * defaultDir is $XDG_STATE_HOME/sharevat/opencode (~/.local/state/… when unset).
 * @param {Record<string, string | undefined>} env
 */
export function defaultDir(env) {
  const state = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), ".local", "state");
  return path.join(state, "sharevat", "opencode");
}

/**
 * resolveSettings reads the settings; a missing url or token is "" (the
 * plugin then stays idle and says why). The url may be the vat's base
 * (http://host:port) or the CLI's ws://host:port/rpc or …/capnweb: it is
 * kept as the base. It throws on a url that cannot name a vat, a bad
 * sessions value or an unreadable token file, naming the setting.
 * @param {Record<string, unknown> | undefined} options
 * @param {Record<string, string | undefined>} env
 * @returns {Settings}
 */
export function resolveSettings(options, env) {
  const o = options ?? {};
  const str = (/** @type {unknown} */ v) => (typeof v === "string" ? v : "");
  let token = str(o.token) || env.SHAREVAT_TOKEN || "";
  const tokenFile = str(o.tokenFile) || env.SHAREVAT_TOKEN_FILE || "";
  if (!token && tokenFile) {
    try {
      token = fs.readFileSync(tokenFile, "utf8").trim();
    } catch (err) {
      throw new Error(`sharevat: token file ${tokenFile}: ${/** @type {any} */ (err).code ?? err}`);
    }
  }
  const sessions = str(o.sessions) || env.SHAREVAT_OPENCODE_SESSIONS || "all";
  if (sessions !== "all" && sessions !== "shared") {
    throw new Error(`sharevat: sessions must be "all" or "shared", not ${JSON.stringify(sessions)}`);
  }
  return {
    url: baseOf(str(o.url) || env.SHAREVAT_URL || ""),
    token,
    dir: str(o.dir) || env.SHAREVAT_OPENCODE_DIR || defaultDir(env),
    sessions,
  };
}

/**
 * baseOf is the vat's base URL for the configured url ("" stays ""), or
 * throws naming the setting and saying what to use.
 * @param {string} url
 */
function baseOf(url) {
  if (!url) return "";
  try {
    return vatBaseURL(url);
  } catch (err) {
    throw new Error(`sharevat: url (option url or SHAREVAT_URL): ${/** @type {any} */ (err)?.detail ?? err}`);
  }
}

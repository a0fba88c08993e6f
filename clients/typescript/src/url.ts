// The vat's URL means the same to every sharevat client, whichever
// endpoint it speaks (docs/guide.md, "The vat's URL"; the Go client's
// client/url.go). Each of these names the vat at HOST:PORT, behind an
// optional path PREFIX (a reverse proxy's):
//
//   http://HOST:PORT[/PREFIX]          the vat's base (https:// behind TLS)
//   ws://HOST:PORT[/PREFIX]/rpc        its Cap'n Proto endpoint, as `sharevat serve` prints it
//   ws://HOST:PORT[/PREFIX]/capnweb    its Cap'n Web endpoint
//
// ws:// and wss:// without an endpoint are the base too, and a trailing
// slash is ignored. This package speaks /capnweb; the Go client and the
// CLI speak /rpc; the opencode plugin uses the base.

import { SharevatError } from "./errors.js";

/** The path suffixes that name an endpoint, not a prefix. */
const endpoints = ["/rpc", "/capnweb"];

/**
 * The vat's base URL for url, in any of the forms above:
 * `http(s)://HOST:PORT[/PREFIX]`, without a trailing slash. A url that
 * cannot name a vat throws "invalid", saying what to use; the message
 * never holds a password or a token.
 */
export function vatBaseURL(url: string): string {
  const u = parseVat(url);
  return u.origin + u.pathname.replace(/\/$/, "");
}

/**
 * The Cap'n Web endpoint of the vat url names, in any of the forms above:
 * `ws(s)://…/capnweb`, or with scheme "http" its `http(s)://…/capnweb`
 * (for HTTP batches). Throws as {@link vatBaseURL}.
 */
export function capnwebURL(url: string, scheme: "ws" | "http" = "ws"): string {
  const base = vatBaseURL(url) + "/capnweb";
  return scheme === "ws" ? base.replace(/^http/, "ws") : base;
}

/** Parses url into the vat's base: scheme http: or https:, the path its prefix without an endpoint or a trailing slash. */
function parseVat(url: string): URL {
  const raw = url.trim();
  if (!raw.includes("://")) {
    const hostPort = raw.includes("@") ? "HOST:PORT" : raw.replace(/\/$/, "").slice(0, 200); // "user:password@…" is never quoted
    throw invalid(`the vat URL ${raw.includes("@") ? "" : JSON.stringify(hostPort) + " "}has no scheme: use http://${hostPort}`);
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("the vat URL is not a URL: use http://HOST:PORT");
  }
  if (u.username || u.password) throw invalid(`the vat URL holds a user name or password: give the token on its own (SHAREVAT_TOKEN)`);
  if (u.search || u.hash || raw.includes("?") || raw.includes("#")) throw invalid(`the vat URL ${shown(u)} has a query or fragment: use http://${u.host}`);
  const scheme = ({ "http:": "http:", "ws:": "http:", "https:": "https:", "wss:": "https:" } as Record<string, string>)[u.protocol];
  if (!scheme || !u.host) throw invalid(`the vat URL ${shown(u)}: the scheme must be http, https, ws or wss; use http://${u.host || "HOST:PORT"}`);
  const base = new URL(`${scheme}//${u.host}`);
  let path = u.pathname.replace(/\/+$/, "");
  for (const e of endpoints) {
    if (path.endsWith(e)) {
      path = path.slice(0, -e.length);
      break;
    }
  }
  base.pathname = path || "/";
  return base;
}

/** u as a message may quote it: without query or fragment. */
function shown(u: URL): string {
  return JSON.stringify(`${u.protocol}//${u.host}${u.pathname}`);
}

function invalid(detail: string): SharevatError {
  return new SharevatError("invalid", detail);
}

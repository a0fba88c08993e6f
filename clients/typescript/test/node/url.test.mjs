// The vat's URL means one thing to every client (docs/guide.md, "The
// vat's URL"; the Go client's TestVatURLForms): each form maps to the one
// /capnweb endpoint and the one base, a real vat is reached through each,
// and a URL that cannot name a vat is "invalid" with the fix, quoting no
// password or token.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { createShare, url } from "../helpers.mjs";

test("every form of the vat's URL maps to its /capnweb endpoint and its base", () => {
  for (const [given, capnweb, base] of [
    ["http://127.0.0.1:7420", "ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["http://127.0.0.1:7420/", "ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["ws://127.0.0.1:7420/rpc", "ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["ws://127.0.0.1:7420/capnweb", "ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["ws://127.0.0.1:7420", "ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["https://vat.example", "wss://vat.example/capnweb", "https://vat.example"],
    ["wss://vat.example/rpc/", "wss://vat.example/capnweb", "https://vat.example"],
    ["WSS://vat.example:8443/capnweb", "wss://vat.example:8443/capnweb", "https://vat.example:8443"],
    ["https://proxy.example/sharevat", "wss://proxy.example/sharevat/capnweb", "https://proxy.example/sharevat"],
    ["wss://proxy.example/sharevat/rpc", "wss://proxy.example/sharevat/capnweb", "https://proxy.example/sharevat"],
    [" http://[::1]:7420 ", "ws://[::1]:7420/capnweb", "http://[::1]:7420"],
  ]) {
    assert.equal(pkg.capnwebURL(given), capnweb, `capnwebURL(${given})`);
    assert.equal(pkg.capnwebURL(given, "http"), capnweb.replace(/^ws/, "http"), `capnwebURL(${given}, "http")`);
    assert.equal(pkg.vatBaseURL(given), base, `vatBaseURL(${given})`);
  }
});

test("a URL that cannot name a vat is invalid, says the fix, and quotes no password or token", () => {
  const secret = "A".repeat(43);
  for (const [given, want] of [
    ["127.0.0.1:7420", `the vat URL "127.0.0.1:7420" has no scheme: use http://127.0.0.1:7420`],
    ["ftp://127.0.0.1:7420", "the scheme must be http, https, ws or wss; use http://127.0.0.1:7420"],
    ["http://127.0.0.1:7420/rpc?x=1", "has a query or fragment: use http://127.0.0.1:7420"],
    ["http://me:hunter2@127.0.0.1:7420", "holds a user name or password"],
    ["me:hunter2@127.0.0.1:7420", "has no scheme: use http://HOST:PORT"],
    [`svt1_abcdefghijklmnopqrstuvwx_${secret}`, "has no scheme"],
  ]) {
    const err = (() => { try { pkg.capnwebURL(given); } catch (e) { return e; } })();
    assert.ok(err instanceof pkg.SharevatError, `${given}: ${err}`);
    assert.equal(err.code, "invalid");
    assert.ok(err.message.includes(want), `${given}: ${err.message}`);
    assert.ok(!err.message.includes("hunter2") && !err.message.includes(secret), err.message);
  }
});

test("a real vat is reached through each form of its URL", async () => {
  const host = new URL(url).host;
  const { token } = await createShare(pkg, "url forms");
  for (const given of [`http://${host}`, `http://${host}/`, `ws://${host}`, `ws://${host}/rpc`, `ws://${host}/capnweb`]) {
    const conn = await pkg.connect(given);
    try {
      const share = await conn.redeem(token);
      assert.equal((await share.info()).info.meta.title, "url forms", given);
    } finally {
      conn.close();
    }
    const r = new pkg.Redeemer(given, token);
    try {
      assert.equal((await (await r.share()).info()).info.meta.title, "url forms", `Redeemer at ${given}`);
    } finally {
      r.close();
    }
  }
});

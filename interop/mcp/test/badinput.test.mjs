// Bad input on both transports — wrong types, missing fields, values out
// of range, a huge request, unknown tools, a bad token — is each a clear
// error, and the server keeps serving.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createShare, mcpURL, ok, toolError, transports } from "./helpers.mjs";

for (const [name, open] of Object.entries(transports)) {
  test(`bad input over ${name}`, async (t) => {
    const client = await open(await createShare(`bad input ${name}`));
    t.after(() => client.close());

    const cases = [
      ["read_ops", { fromCursor: "ten" }, /^invalid: .*fromCursor/],
      ["read_ops", { limit: 1e6 }, /^invalid: .*limit: maximum/],
      ["append_ops", {}, /^invalid: .*ops/],
      ["append_ops", { ops: "all of them" }, /^invalid: .*ops/],
      ["append_ops", { ops: [{ key: "k" }] }, /^invalid: .*kind/],
      ["append_ops", { ops: [] }, /^invalid: .*ops: minItems/],
      ["append_ops", { ops: null }, /^invalid: .*ops/],
      ["append_ops", { ops: [{ kind: "nonsense", key: "k" }] }, /^invalid: .*kind: enum/],
      ["grant", { scope: 7 }, /^invalid: .*scope/],
      ["grant", { scope: "root" }, /^invalid: scope: /],
      ["revoke", {}, /^invalid: .*grantId/],
      ["revoke", { grantId: "g_nothing" }, /^notFound: /],
      ["fork", { atCursor: 999 }, /^invalid: /],
      ["follow_ops", { waitSeconds: 86400 }, /^invalid: .*waitSeconds: maximum/],
    ];
    for (const [tool, args, want] of cases) {
      assert.match(await toolError(client, tool, args), want, `${tool} ${JSON.stringify(args)}`);
    }

    // An op over the vat's body limit (1 MiB by default) is refused by
    // the vat, as on every door.
    const big = await client.callTool({ name: "append_ops", arguments: { ops: [{ kind: "event", body: { text: "x".repeat(2 << 20) } }] } });
    if (big.isError) {
      assert.match(big.content[0].text, /^tooLarge: /);
    } else {
      assert.equal(big.structuredContent.rejected, 1);
      assert.equal(big.structuredContent.results[0].reason, "tooLarge");
    }
    if (name === "http") {
      // A request over the door's byte limit is refused before it is parsed.
      const huge = { ops: [{ kind: "event", body: { text: "x".repeat(20 << 20) } }] };
      await assert.rejects(client.callTool({ name: "append_ops", arguments: huge }), /413|too ?large|exceeds/i);
    }

    await assert.rejects(client.callTool({ name: "drop_database", arguments: {} }), /drop_database/);

    if (name === "http") {
      // A bad bearer token is refused 401 before anything is read.
      await assert.rejects(open("svt1_thisisnotatoken"), /401|unauthorized/i);
    } else {
      const bad = await open("svt1_thisisnotatoken");
      t.after(() => bad.close());
      assert.match(await toolError(bad, "share_info"), /^unauthorized: /);
    }

    assert.equal((await ok(client, "share_info")).head, 0, "the server keeps serving");
    const res = await ok(client, "append_ops", { ops: [{ kind: "message", key: "k", body: { text: "still here" } }] });
    assert.equal(res.applied, 1);
  });
}

test("http without a bearer token is refused", async () => {
  const res = await fetch(mcpURL, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
  });
  assert.equal(res.status, 401);
  assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
});

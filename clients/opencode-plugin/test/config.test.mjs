// SHAREVAT_URL means one thing to the plugin and the CLI (docs/guide.md,
// "The vat's URL"): the CLI's ws://host:port/rpc, the /capnweb endpoint
// and the base http://host:port all name the vat, and the flush reaches
// the door's share through the CLI's form. Before, the plugin took the
// CLI's URL for a base and asked http://host:port/rpc/opencode/… (404).
import assert from "node:assert/strict";
import test from "node:test";
import { resolveSettings } from "../src/config.js";
import { Flusher } from "../src/flusher.js";
import { itemToOp } from "../src/mapping.js";
import { creationToken, doorCreate, scratch, vatURL } from "./helpers.mjs";

test("every form of the vat's URL resolves to its base; one that names no vat is refused naming the setting", () => {
  for (const [given, base] of [
    ["http://127.0.0.1:7420", "http://127.0.0.1:7420"],
    ["http://127.0.0.1:7420/", "http://127.0.0.1:7420"],
    ["ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"],
    ["ws://127.0.0.1:7420/capnweb", "http://127.0.0.1:7420"],
    ["wss://vat.example/sharevat/rpc", "https://vat.example/sharevat"],
  ]) {
    assert.equal(resolveSettings({}, { SHAREVAT_URL: given }).url, base, `SHAREVAT_URL=${given}`);
    assert.equal(resolveSettings({ url: given }, {}).url, base, `option url ${given}`);
  }
  assert.equal(resolveSettings({}, {}).url, "", "unset stays unset");
  assert.throws(() => resolveSettings({}, { SHAREVAT_URL: "127.0.0.1:7420" }), /^Error: sharevat: url \(option url or SHAREVAT_URL\): the vat URL "127.0.0.1:7420" has no scheme: use http:\/\/127.0.0.1:7420$/);
});

test("with SHAREVAT_URL set to the CLI's ws://host:port/rpc, a session's ops reach the door's share for it", async () => {
  const sid = "ses_url_rpc";
  const door = await doorCreate(sid);
  const s = resolveSettings({}, { SHAREVAT_URL: vatURL().replace(/^http/, "ws") + "/rpc", SHAREVAT_TOKEN: creationToken() });
  const lines = [];
  const f = new Flusher({ url: s.url, token: s.token, dir: scratch(), log: (l) => lines.push(l), debounceMs: 0, keepAlive: true });
  const ops = [itemToOp("session", { id: sid, title: "t", time: { created: 1, updated: 2 } }, sid)];
  f.outbox(sid).enqueueSync(ops.map((o) => ({ opId: o.opId, kind: o.kind, key: o.key, body: Buffer.from(o.body) })));
  await f.kick(sid);
  assert.equal(f.outbox(sid).status().pending, 0, lines.join("\n"));
  assert.equal(f.readShare(sid).shareId, door.id, "the share the door answers for the session");
  await f.close();
});

// example/sync.ts runs as documented: it is transpiled (types erased) into
// node_modules/.sharevat-example/, where it resolves capnweb and ws, and
// its ShareSync appends part revisions with derived op ids; a second
// ShareSync (a restarted tool) resending them after a reconnect gets
// duplicates, not copies.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { WebSocket } from "ws";
import { capnwebURL, connect, createShare } from "./helpers.mjs";

/** Every WebSocket the example opens, so the test can break one. */
const sockets = /** @type {WebSocket[]} */ ([]);
globalThis.WebSocket = /** @type {any} */ (class TrackedWebSocket extends WebSocket {
  /** @param {ConstructorParameters<typeof WebSocket>} args */
  constructor(...args) {
    super(...args);
    sockets.push(this);
  }
});

const dir = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Transpiles example/sync.ts and imports it. */
async function loadExample() {
  const src = readFileSync(join(dir, "example", "sync.ts"), "utf8");
  const out = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const buildDir = join(dir, "node_modules", ".sharevat-example");
  mkdirSync(buildDir, { recursive: true });
  const file = join(buildDir, `sync-${process.pid}.mjs`);
  writeFileSync(file, out.outputText);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}

test("the example's sync loop appends, survives a reconnect, and retries idempotently", async () => {
  const { ShareSync } = await loadExample();
  const { owner } = await createShare("example");
  const parts = [
    { messageId: "msg_1", partId: "prt_1", revision: 0, body: { type: "text", text: "Hel" } },
    { messageId: "msg_1", partId: "prt_1", revision: 1, body: { type: "text", text: "Hello" } },
    { messageId: "msg_1", partId: "prt_2", revision: 0, body: { type: "tool", state: "running" } },
  ];
  const first = new ShareSync(capnwebURL, owner);
  first.update(parts[0]);
  await first.flush();
  assert.equal(sockets.length, 1);
  // The connection breaks under it: the next flush redeems the token on a new one.
  sockets[0].terminate();
  first.update(parts[1]);
  await first.flush();
  assert.equal(sockets.length, 2, "the flush reconnected");
  first.close();

  // A restarted tool resends everything (its acks were lost) plus a new part.
  const second = new ShareSync(capnwebURL, owner);
  for (const p of parts) second.update(p);
  await second.flush();
  second.close();

  const { vault } = connect();
  try {
    const { ops, head } = await vault.restore(owner).share.reader().read(0, 100);
    assert.equal(head, 3, "the resent revisions were duplicates");
    assert.deepEqual(ops.map((o) => [o.opId, o.key]), [
      ["msg_1:prt_1:0", "msg_1:prt_1"],
      ["msg_1:prt_1:1", "msg_1:prt_1"],
      ["msg_1:prt_2:0", "msg_1:prt_2"],
    ]);
    assert.deepEqual(ops[1].body, { type: "text", text: "Hello" });
  } finally {
    vault[Symbol.dispose]();
  }
});

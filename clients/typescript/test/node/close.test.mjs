// close() releases everything: a process that opened a subscription, a
// tail, a tail iterator, a Redeemer in its backoff and one stuck in a
// handshake exits by itself once it closed them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import * as pkg from "../../dist/index.js";
import { createShare, freePort, url } from "../helpers.mjs";

test("after close() nothing keeps the process alive", async () => {
  const deadPort = await freePort(); // nothing listens there
  const { token } = await createShare(pkg, "close");
  const fixture = join(import.meta.dirname, "..", "fixtures", "close-exits.mjs");
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [fixture, url, token, String(deadPort)], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (err.killed ? "killed: the process did not exit after close()" : err.code) : 0, stdout, stderr }),
    );
  });
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), "closed (unavailable, unavailable)");
});



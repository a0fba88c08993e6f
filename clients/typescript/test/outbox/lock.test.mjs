// The outbox's lock when its holder is gone (issue 32, bug 7): a holder
// SIGKILLed and then its lock left empty or half written, its pid reused
// by another live process, or — as in a container restarted after a
// SIGKILL — reused by the very process that opens next (PID 1 again). Each
// opens at once; a live holder in another process still keeps it "in use".
// Real child processes, SIGKILLed. No server needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { Outbox } from "../../dist/outbox/index.js";
import { tempDir } from "./vat.mjs";

const holderJS = new URL("./holder.mjs", import.meta.url).pathname;
const openerJS = new URL("./opener.mjs", import.meta.url).pathname;

/** Starts argv (default: this runtime) running holder.mjs on path; resolves once it holds the outbox. */
async function holder(path, argv = [process.execPath]) {
  const child = spawn(argv[0], [...argv.slice(1), holderJS, path, "file"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const [line] = await once(child.stdout, "data");
  assert.equal(String(line), "open\n");
  return { child, kill: async () => { child.kill("SIGKILL"); await exited; } };
}

/** A live process that is no outbox's holder: stopped at the end of the test. */
async function bystander(t) {
  const child = spawn(process.execPath, ["-e", "process.stdout.write('up\\n'); setInterval(() => {}, 1 << 30)"], { stdio: ["ignore", "pipe", "inherit"] });
  await once(child.stdout, "data");
  t.after(() => child.kill("SIGKILL"));
  return child.pid;
}

/** Opens path without waiting; asserts the dead holder's op is there. */
async function opensAtOnce(path, what) {
  const ob = await Outbox.open(path, { lockTimeoutMs: 200 }).catch((e) => assert.fail(`${what}: ${e.message}`));
  assert.equal(ob.result("held").state, "pending", `${what}: what the holder enqueued is there`);
  await ob.close();
}

/** Replaces the pid in the lock line at lockPath with pid, keeping the rest. */
function renamePid(lockPath, pid) {
  const line = readFileSync(lockPath, "utf8");
  writeFileSync(lockPath, line.replace(/^\d+ /, `${pid} `));
}

test("[file] a live holder in another process keeps the outbox in use, naming its pid, until it is SIGKILLed", async () => {
  const path = join(tempDir("lock"), "ob");
  const h = await holder(path);
  const err = await Outbox.open(path, { lockTimeoutMs: 100 }).then(() => assert.fail("opened while held"), (e) => e);
  assert.equal(err.code, "unavailable");
  assert.equal(err.message, `unavailable: the outbox file ${path} is in use (by pid ${h.child.pid}); only one process may open it at a time`);
  await h.kill();
  await opensAtOnce(path, "after the SIGKILL");
});

test("[file] an empty or half-written lock file left behind opens at once", async () => {
  const path = join(tempDir("lock"), "ob");
  const h = await holder(path);
  await h.kill();
  const whole = readFileSync(path + ".lock", "utf8");
  for (const [what, content] of [["empty", ""], ["half written", whole.slice(0, 9)], ["cut before its newline", whole.slice(0, -1)]]) {
    writeFileSync(path + ".lock", content);
    await opensAtOnce(path, what);
  }
});

test("[file] a lock whose holder's pid now belongs to another live process opens at once", async (t) => {
  const path = join(tempDir("lock"), "ob");
  const h = await holder(path);
  await h.kill();
  renamePid(path + ".lock", await bystander(t));
  await opensAtOnce(path, "pid reused");
});

test("[file] a lock whose holder's pid is now the opener's own (PID 1 restarted as PID 1) opens at once", async () => {
  const path = join(tempDir("lock"), "ob");
  const h = await holder(path);
  await h.kill();
  renamePid(path + ".lock", process.pid);
  await opensAtOnce(path, "the opener's own pid");
});

const pidns = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc"];
const canUnshare = spawnSync(pidns[0], [...pidns.slice(1), "true"]).status === 0;

test("[file] a container's PID 1 SIGKILLed and restarted as PID 1 opens its outbox at once", { skip: !canUnshare && "unshare cannot make a pid namespace here" }, async () => {
  const path = join(tempDir("lock"), "ob");
  const h = await holder(path, [...pidns, process.execPath]);
  assert.match(readFileSync(path + ".lock", "utf8"), /^1 /, "the holder is PID 1 of its namespace");
  await h.kill();
  const opener = spawn(pidns[0], [...pidns.slice(1), process.execPath, openerJS, path], { stdio: ["ignore", "pipe", "inherit"] });
  const [out] = await once(opener.stdout, "data");
  assert.deepEqual(JSON.parse(String(out)), { pid: 1, held: "pending" });
});

// Opens the outbox named by argv[2] without waiting for another holder and
// prints what happened as one JSON line: this process's pid and either the
// state of op "held" or the error's code and message.
import { Outbox } from "../../dist/outbox/index.js";
try {
  const ob = await Outbox.open(process.argv[2], { lockTimeoutMs: 200 });
  process.stdout.write(JSON.stringify({ pid: process.pid, held: ob.result("held").state }) + "\n");
  await ob.close();
} catch (e) {
  process.stdout.write(JSON.stringify({ pid: process.pid, code: e.code, message: e.message }) + "\n");
}

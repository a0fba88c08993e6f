// Opens the file outbox named by argv[2] with Outbox.openSync, enqueues
// argv[3] ops with enqueueSync, one a call, while a flush loop of async
// writes runs beside it, then SIGKILLs itself in the same tick as the last
// enqueueSync returned: nothing asynchronous ran after it. With "async" as
// argv[4] it enqueues with the asynchronous enqueue instead (not awaited),
// for contrast.
import { Outbox } from "../../dist/outbox/index.js";

const [path, count, mode] = [process.argv[2], Number(process.argv[3]), process.argv[4] ?? "sync"];
const ob = Outbox.openSync(path);
for (let i = 0; i < count; i++) {
  const op = { opId: `sync-${i}`, kind: "part", key: `k${i % 3}`, body: { n: i } };
  if (mode === "async") void ob.enqueue([op]);
  else ob.enqueueSync([op]);
  if (i % 7 === 3) await ob.enqueue([{ opId: `async-${i}`, kind: "event", body: { after: i } }]);
}
process.kill(process.pid, "SIGKILL");

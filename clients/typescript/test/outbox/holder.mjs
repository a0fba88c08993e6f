// Opens the outbox named by argv[2], says "open" on stdout and waits to be killed.
import { Outbox } from "../../dist/outbox/index.js";
const ob = await Outbox.open(process.argv[2], { storage: process.argv[3] ?? "file" });
await ob.enqueue([{ opId: "held", kind: "event", body: 1 }]);
process.stdout.write("open\n");
setInterval(() => {}, 1 << 30);

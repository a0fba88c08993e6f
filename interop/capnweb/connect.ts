// The user guide's (docs/guide.md) "From TypeScript: Cap'n Web" snippet,
// type-checked by TestTypeScript and compared with the guide by
// TestReadmeSnippet.
import { WebSocket as NodeWebSocket } from "ws";
globalThis.WebSocket ??= NodeWebSocket as unknown as typeof WebSocket; // Node 20 has no WebSocket

// README begin
import { newWebSocketRpcSession } from "capnweb";
import type { LogEntry, Vault } from "./sharevat.js";

const vault = newWebSocketRpcSession<Vault>("ws://127.0.0.1:7420/capnweb");
const restored = vault.restore(process.env.SHAREVAT_TOKEN!);     // svt1_… from `sharevat create`
const ack = await restored.share.appender().append({             // restore → appender → append: one round trip
  epoch: restored.access.epoch,
  ops: [{ opId: "msg_1:prt_1:0", kind: "part", key: "msg_1:prt_1", body: { messageID: "msg_1", type: "text", text: "hi" } }],
});
const sub = await restored.share.reader().subscribe(0, (ops: LogEntry[]) => console.log(ops)); // backlog, then live
// README end

console.log(ack.head, await sub.cursor());

// @sharevat/client: the TypeScript client of sharevat, over Cap'n Web.
//
//   import { connect } from "@sharevat/client";
//   const conn = await connect("ws://127.0.0.1:7420/capnweb");
//   const share = await conn.redeem(process.env.SHAREVAT_TOKEN);
//   const ack = await (await share.appender()).append({ ops: [...] });
//   conn.close();
//
// The API follows the Go client (client/): see README.md for the mapping.
export { connect, Conn, type ConnectOptions } from "./conn.js";
export { Admin, Share, type CreatedShare } from "./share.js";
export { Appender, Reader, Subscription, type AppendBatch, type SubscriptionOutcome } from "./log.js";
export { Redeemer, type RedeemerOptions } from "./redeemer.js";
export { tail, tailIterator, type TailIterator, type TailOptions } from "./tail.js";
export { SharevatError, errorCodes, isErrorCode, isPermanent } from "./errors.js";
export { capnwebURL, vatBaseURL } from "./url.js";
export { appendOnce, httpBatch, readOnce } from "./batch.js";
export type * as wire from "./wire.js";
export type {
  Access, Ack, Batch, Cursor, Entity, Epoch, ErrorCode, Fenced, GrantInfo, Id, Json, Limits, ListFilter, LogEntry,
  Meta, MetaInput, Minted, Op, OpResult, OpStatus, Privacy, Reason, Scope, ScopeInput, Settings, SettingsInput,
  ShareInfo, ShareStatus, Status, Time, Token, UInt64, UInt64Input, Vault,
} from "./wire.js";

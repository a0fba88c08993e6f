// The durable outbox of the sharevat TypeScript client: see outbox.ts.
export { Outbox, type OutboxOptions, type OutboxResult, type OutboxStatus } from "./outbox.js";
export type { FlushOptions } from "./flush.js";
export type { OutboxTarget, OutboxSession } from "./target.js";
export { redeemerTarget } from "./redeemer.js";
export type { Storage } from "./storage.js";
export { DamagedError } from "./storage.js";
export { FileStorage } from "./file.js";
export { SqliteStorage, builtinSqlite } from "./sqlite.js";
export { DEFAULT_LIMITS, type OutboxOp } from "./types.js";
export { checkOp } from "./validate.js";

// The SQLite backends: the same frames as rows of one table, through
// bun:sqlite on Bun (the runtime opencode embeds) or node:sqlite where the
// Node version has it (22.5 and later; Node 20 does not). Both are built
// into their runtime: nothing to compile. Durability: WAL with
// synchronous=FULL, so a committed transaction is fsync'd before it
// returns. Each row keeps the CRC-32C of its frame, so damaged data is
// refused like the file backend's.

import { crc32c } from "./crc32c.js";
import { DamagedError, type Storage } from "./storage.js";
import { syncDir } from "./file.js";
import { dirname } from "node:path";

const enc = new TextEncoder();

/** The part of bun:sqlite's Database and node:sqlite's DatabaseSync the backend uses. */
interface SqlDB {
  exec(sql: string): unknown;
  prepare(sql: string): { run(...args: unknown[]): unknown; all(...args: unknown[]): unknown[] };
  close(): unknown;
}

/** Which SQLite this runtime has built in: "bun:sqlite", "node:sqlite", or undefined. */
export async function builtinSqlite(): Promise<"bun:sqlite" | "node:sqlite" | undefined> {
  if ((globalThis as { Bun?: unknown }).Bun) return "bun:sqlite";
  try {
    await import("node:sqlite" as string);
    return "node:sqlite";
  } catch {
    return undefined;
  }
}

async function openDB(kind: string, path: string): Promise<SqlDB> {
  const mod: Record<string, new (p: string) => SqlDB> = await import(kind as string);
  const Ctor = kind === "bun:sqlite" ? mod.Database! : mod.DatabaseSync!;
  return new Ctor(path);
}

/** The outbox as rows of a SQLite table. */
export class SqliteStorage implements Storage {
  private db: SqlDB | undefined;
  private bytes = 0;

  constructor(readonly kind: "bun:sqlite" | "node:sqlite", readonly path: string) {}

  async load(first: string): Promise<string[]> {
    const fresh = !(await exists(this.path));
    const db = await openDB(this.kind, this.path).catch((e) => {
      throw new DamagedError(this.path, String((e as Error).message));
    });
    this.db = db;
    try {
      db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
      const check = db.prepare("PRAGMA quick_check").all() as Record<string, string>[];
      const verdict = Object.values(check[0] ?? {})[0];
      if (verdict !== "ok") throw new DamagedError(this.path, `SQLite's check says ${verdict}`);
      if (fresh) {
        db.exec("CREATE TABLE frames (n INTEGER PRIMARY KEY, crc INTEGER NOT NULL, frame TEXT NOT NULL)");
        this.insert([first]);
        await syncDir(dirname(this.path));
      }
      return this.readAll();
    } catch (e) {
      db.close();
      this.db = undefined;
      if (e instanceof DamagedError) throw e;
      throw new DamagedError(this.path, (e as Error).message);
    }
  }

  private readAll(): string[] {
    const rows = this.handle().prepare("SELECT n, crc, frame FROM frames ORDER BY n").all() as { n: number; crc: number; frame: string }[];
    if (rows.length === 0) throw new DamagedError(this.path, "it has no frames");
    this.bytes = 0;
    for (const r of rows) {
      if (crc32c(enc.encode(r.frame)) !== Number(r.crc)) throw new DamagedError(this.path, `frame ${r.n} fails its checksum`);
      this.bytes += r.frame.length;
    }
    return rows.map((r) => r.frame);
  }

  /** Inserts frames in one transaction, after deleting every row first when clear is set. */
  private insert(frames: string[], clear = false): void {
    const db = this.handle();
    const st = db.prepare("INSERT INTO frames (crc, frame) VALUES (?, ?)");
    db.exec("BEGIN IMMEDIATE");
    try {
      if (clear) {
        db.exec("DELETE FROM frames");
        this.bytes = 0;
      }
      for (const f of frames) {
        st.run(crc32c(enc.encode(f)), f);
        this.bytes += f.length;
      }
      db.exec("COMMIT");
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  }

  async append(frames: string[]): Promise<void> {
    this.insert(frames);
  }

  async replace(frames: string[]): Promise<void> {
    this.insert(frames, true);
    this.handle().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  size(): number {
    return this.bytes;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private handle(): SqlDB {
    if (!this.db) throw new Error(`the outbox file ${this.path} is closed`);
    return this.db;
  }
}

async function exists(p: string): Promise<boolean> {
  const { promises: fsp } = await import("node:fs");
  return fsp.stat(p).then(() => true, () => false);
}

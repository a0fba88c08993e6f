// Share and Admin: the capabilities of one share and of the vat's admin,
// as the Go client's Share and Admin.
import type { RpcStub } from "capnweb";
import type { Conn } from "./conn.js";
import { Appender, Reader } from "./log.js";
import type * as w from "./wire.js";

/** What creating or forking a share gives: the new share's owner capability and token. */
export interface CreatedShare {
  /** The new share, with every right. */
  share: Share;
  /** Its owner token: shown once, keep it secret. */
  owner: w.Minted;
}

/**
 * A live capability on one share, narrowed to its grant's scope (the Go
 * client's Share). `access` and `info` are as of when it was obtained;
 * {@link Share.info} asks again. It dies with its connection.
 */
export class Share {
  /** The raw capnweb stub, for what this class does not wrap. */
  readonly stub: RpcStub<w.Share>;
  /** What this capability may do, and the epoch to append at. */
  access: w.Access;
  /** The share as of when this capability was obtained (or last {@link Share.info}). */
  shareInfo: w.ShareInfo;
  readonly #conn: Conn;

  /** @internal */
  constructor(conn: Conn, stub: RpcStub<w.Share>, access: w.Access, info: w.ShareInfo) {
    this.#conn = conn;
    this.stub = stub;
    this.access = access;
    this.shareInfo = info;
  }

  /** The connection this capability lives on. */
  get conn(): Conn {
    return this.#conn;
  }

  /** The share's current info and the caller's access; refreshes `shareInfo` and `access` (Go: Fetch). */
  async info(): Promise<{ info: w.ShareInfo; access: w.Access }> {
    const r = await this.#conn.call(() => this.stub.info());
    this.shareInfo = r.info;
    this.access = r.access;
    return r;
  }

  /** Sets the metadata (status among it); missing fields are left alone. Needs admin. */
  async update(meta: w.MetaInput): Promise<w.ShareInfo> {
    const info = await this.#conn.call(() => this.stub.update(meta));
    this.shareInfo = info;
    return info;
  }

  /** An Appender of this share, appending at this capability's epoch by default. Needs append. */
  async appender(): Promise<Appender> {
    const stub = await this.#conn.call(() => this.stub.appender());
    return new Appender(this.#conn, stub as never, () => this.access.epoch);
  }

  /** A Reader of this share. Needs read. */
  async reader(): Promise<Reader> {
    const stub = await this.#conn.call(() => this.stub.reader());
    return new Reader(this.#conn, stub as never);
  }

  /**
   * Mints a token for a narrower scope (a missing right is false) that
   * expires after ttlSeconds (0: when the caller's does). Needs delegate.
   */
  grant(scope: w.ScopeInput, ttlSeconds = 0, label = ""): Promise<w.Minted> {
    return this.#conn.call(() => this.stub.grant(scope, ttlSeconds, label));
  }

  /** Mints a token for exactly this capability's rights. Needs delegate. */
  save(ttlSeconds = 0, label = ""): Promise<w.Minted> {
    return this.#conn.call(() => this.stub.save(ttlSeconds, label));
  }

  /** The delegation tree. Never carries a secret. */
  grants(): Promise<w.GrantInfo[]> {
    return this.#conn.call(() => this.stub.grants());
  }

  /** Revokes a grant and everything minted from it. Needs admin, or the grant in the caller's subtree. */
  async revoke(grantId: w.Id): Promise<void> {
    await this.#conn.call(() => this.stub.revoke(grantId));
  }

  /** Fences every grant of the share (this one's too) and answers a new owner token at the new epoch. Needs admin. */
  bumpEpoch(): Promise<w.Fenced> {
    return this.#conn.call(() => this.stub.bumpEpoch());
  }

  /** A new share holding this one's ops 1..atCursor; meta's set fields override the parent's. Needs read. */
  async fork(atCursor: w.UInt64Input, meta: w.MetaInput = {}): Promise<CreatedShare> {
    const c = await this.#conn.call(() => this.stub.fork(atCursor, meta));
    return created(this.#conn, c);
  }

  /** The live shares forked from this one, oldest first. Needs read. */
  children(): Promise<w.ShareInfo[]> {
    return this.#conn.call(() => this.stub.children());
  }

  /** Deletes the share: every grant of it dies at once. Needs admin. */
  async delete(): Promise<void> {
    await this.#conn.call(() => this.stub.delete());
  }

  /** The privacy policy and retention. Needs read. */
  settings(): Promise<w.Settings> {
    return this.#conn.call(() => this.stub.settings());
  }

  /** Replaces the settings and answers them as stored. Needs admin. */
  configure(settings: w.SettingsInput): Promise<w.Settings> {
    return this.#conn.call(() => this.stub.configure(settings));
  }

  /** Drops the ops before beforeCursor; answers the earliest readable cursor. Needs admin. */
  compact(beforeCursor: w.UInt64Input): Promise<w.Cursor> {
    return this.#conn.call(() => this.stub.compact(beforeCursor));
  }

  /** Drops this capability (the connection stays). */
  release(): void {
    release(this.stub);
  }
}

/** What the server's admin token (or a vat started with --open) may do (the Go client's Admin). */
export class Admin {
  /** The raw capnweb stub. */
  readonly stub: RpcStub<w.Admin>;
  readonly #conn: Conn;

  /** @internal */
  constructor(conn: Conn, stub: RpcStub<w.Admin>) {
    this.#conn = conn;
    this.stub = stub;
  }

  /** Creates a share; its owner token holds every right. */
  async createShare(meta: w.MetaInput = {}): Promise<CreatedShare> {
    const c = await this.#conn.call(() => this.stub.createShare(meta));
    return created(this.#conn, c);
  }

  /** One page of shares, newest update first. */
  list(filter: w.ListFilter = {}): Promise<{ shares: w.ShareInfo[]; nextPageToken: string }> {
    return this.#conn.call(() => this.stub.list(filter));
  }

  /** Every share matching filter, page after page (Go: ListAll). */
  async *listAll(filter: w.ListFilter = {}): AsyncGenerator<w.ShareInfo> {
    let pageToken = filter.pageToken ?? "";
    for (;;) {
      const page = await this.list({ ...filter, pageToken });
      yield* page.shares;
      if (!page.nextPageToken) return;
      pageToken = page.nextPageToken;
    }
  }

  /** Bumps a share's epoch (every earlier token dies) and mints a new owner token. */
  resetOwner(shareId: w.Id): Promise<w.Fenced> {
    return this.#conn.call(() => this.stub.resetOwner(shareId));
  }

  /** The status of every live share. */
  statuses(): Promise<w.ShareStatus[]> {
    return this.#conn.call(() => this.stub.statuses());
  }

  /** Drops this capability (the connection stays). */
  release(): void {
    release(this.stub);
  }
}

/** A CreatedShare of a `{share, owner, info}` answer. */
function created(conn: Conn, c: { share: unknown; owner: w.Minted; info: w.ShareInfo }): CreatedShare {
  const access: w.Access = { grantId: c.owner.grantId, scope: c.owner.scope, epoch: c.info.epoch, expiresAt: c.owner.expiresAt };
  return { share: new Share(conn, c.share as never, access, c.info), owner: c.owner };
}

/** Disposes a capnweb stub, ignoring a session already gone. @internal */
export function release(stub: { [Symbol.dispose](): void }): void {
  try {
    stub[Symbol.dispose]();
  } catch {
    // the session is gone, and the stub with it
  }
}

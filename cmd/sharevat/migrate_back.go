package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"sharevat"
	"sharevat/store/bolt"
	"sharevat/store/pg"
)

// replayLimits accept every op the database holds: each passed the
// limits of its own append, whatever they were.
var replayLimits = sharevat.Limits{MaxBodyBytes: sharevat.HardMaxBatchBytes, MaxOpsPerBatch: 100_000,
	MaxBatchBytes: sharevat.HardMaxBatchBytes, MaxOpIDLen: 4096, MaxKeyLen: 16 << 10, MaxDependsOn: 10_000}

// migrateBack copies the vault of the database dsn into a new data
// directory dir, with the pepper given (checked against the database's
// fingerprint, and written to dir/pepper.key). bbolt takes no raw rows,
// so the copy goes through its Store interface: each share is created
// (a fork by forking its parent, when that is still live and not
// compacted past the fork cursor) and its log appended again batch by
// batch with each batch's time, which gives the same cursors, op ids,
// digests and state; grants are stored as they are, deletions done
// again; the audit log is appended in order (its sequence numbers
// renumbered from 1). A compacted share is created as
// compacted (bolt.DB.CreateCompacted: the op ids of the ops compacted
// away and its state at earliest-1) and its log replayed from its
// earliest cursor on.
func migrateBack(ctx context.Context, env *Env, dsn, dir string, pepper []byte) error {
	src, err := pg.Open(ctx, dsn, pg.Options{})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer src.Close()
	if err := checkPepperFingerprint(ctx, src, pepper); err != nil {
		return err
	}
	shares, err := sharesInOrder(ctx, src)
	if err != nil {
		return err
	}
	if err := freshDataDir(dir); err != nil {
		return err
	}
	dst, err := bolt.Open(filepath.Join(dir, dbFile), bolt.Options{})
	if err != nil {
		return err
	}
	defer dst.Close()
	n, err := replayVault(ctx, src, dst, shares)
	if err != nil {
		return err
	}
	if err := writeSecretFile(filepath.Join(dir, pepperFile), pepper); err != nil {
		return fmt.Errorf("pepper: %w", err)
	}
	fmt.Fprintf(env.Stdout, "migrated %d shares, %d grants, %d ops, %d audit records to %s; copy the vats' admin.token there before starting it\n",
		n.shares, n.grants, n.ops, n.audit, dir)
	return nil
}

// freshDataDir makes dir, which must not hold a vault yet.
func freshDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	for _, name := range []string{dbFile, pepperFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s already holds %s: migrate only into a new data directory", dir, name)
		}
	}
	return nil
}

// sharesInOrder lists the shares, oldest first (a fork after its
// parent).
func sharesInOrder(ctx context.Context, src sharevat.Store) ([]sharevat.Share, error) {
	shares, err := src.Shares(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(shares, func(a, b sharevat.Share) int { return a.Meta.CreatedAt.Compare(b.Meta.CreatedAt) })
	return shares, nil
}

// replayVault replays every share, the admin grants and the audit log.
func replayVault(ctx context.Context, src sharevat.Store, dst *bolt.DB, shares []sharevat.Share) (copied, error) {
	var n copied
	for _, s := range shares {
		g, ops, err := replayShare(ctx, src, dst, s)
		if err != nil {
			return n, fmt.Errorf("share %s: %w", s.ID, err)
		}
		n.shares, n.grants, n.ops = n.shares+1, n.grants+g, n.ops+ops
	}
	admins, err := src.Grants(ctx, "")
	if err != nil {
		return n, err
	}
	for _, g := range admins {
		if err := dst.CreateGrant(ctx, g); err != nil {
			return n, fmt.Errorf("admin grant: %w", err)
		}
	}
	n.grants += len(admins)
	n.audit, err = replayAudit(ctx, src, dst)
	return n, err
}

// replayShare creates s in dst, its grants and its log, and deletes it
// again if it was deleted; it returns the grants and ops it wrote.
func replayShare(ctx context.Context, src sharevat.Store, dst *bolt.DB, s sharevat.Share) (int, int, error) {
	owner, err := src.Grant(ctx, s.OwnerRoot)
	if err != nil {
		return 0, 0, fmt.Errorf("owner grant: %w", err)
	}
	from, err := createReplayed(ctx, src, dst, s, owner)
	if err != nil {
		return 0, 0, err
	}
	grants, err := replayGrants(ctx, src, dst, s.ID, owner.ID)
	if err != nil {
		return 0, 0, err
	}
	ops, err := replayLog(ctx, src, dst, s, from)
	if err != nil || !s.Deleted {
		return grants, ops, err
	}
	return grants, ops, dst.Delete(ctx, s.ID, s.DeletedAt)
}

// replayGrants copies share id's grants but its owner's (a deleted
// share's too: revoked, as its store keeps them) and returns how many
// grants the share has.
func replayGrants(ctx context.Context, src sharevat.Store, dst *bolt.DB, id sharevat.ShareID, owner sharevat.GrantID) (int, error) {
	gs, err := src.Grants(ctx, id)
	if err != nil {
		return 0, err
	}
	n := 1
	for _, g := range gs {
		if g.ID != owner {
			if err := dst.CreateGrant(ctx, g); err != nil {
				return 0, fmt.Errorf("grant: %w", err)
			}
			n++
		}
	}
	return n, nil
}

// createReplayed creates s (as compacted when it was, else by forking
// its parent when that is live in dst) and returns the cursor its log
// already holds. A fork whose parent is deleted, or was compacted past
// its fork cursor after the fork was made, cannot be forked again; it is
// created empty with its parent and fork cursor, and its whole log (the
// parent's ops it copied at the fork, then its own) replayed.
func createReplayed(ctx context.Context, src sharevat.Store, dst *bolt.DB, s sharevat.Share, owner sharevat.Grant) (sharevat.Cursor, error) {
	if s.Earliest > 1 && !s.Deleted {
		return s.Earliest - 1, createCompacted(ctx, src, dst, s, owner)
	}
	if s.ParentID == "" {
		return 0, dst.CreateShare(ctx, s, owner)
	}
	if p, err := dst.Share(ctx, s.ParentID); err == nil && !p.Deleted && s.ForkCursor+1 >= p.Earliest {
		_, err := dst.Fork(ctx, s.ParentID, s.ForkCursor, s, owner)
		return s.ForkCursor, err
	}
	return 0, dst.CreateCompacted(ctx, s, owner, sharevat.Compacted{Earliest: 1}, nil)
}

// createCompacted creates the compacted share s in dst from what src's
// compactions kept (the op ids of the ops they dropped, the base) and
// its state, so that its log replays from its earliest cursor on.
func createCompacted(ctx context.Context, src sharevat.Store, dst *bolt.DB, s sharevat.Share, owner sharevat.Grant) error {
	cr, ok := src.(sharevat.CompactedReader)
	if !ok {
		return fmt.Errorf("the share was compacted, and this store cannot give the op ids of the ops it dropped")
	}
	k, err := cr.ReadCompacted(ctx, s.ID)
	if err != nil {
		return err
	}
	if k.Earliest != s.Earliest {
		return fmt.Errorf("the share's earliest cursor moved from %d to %d while it was read: is a vat running?", s.Earliest, k.Earliest)
	}
	state, _, err := src.Snapshot(ctx, s.ID)
	if err != nil {
		return err
	}
	return dst.CreateCompacted(ctx, s, owner, k, state)
}

// replayLog appends s's ops after from again, one append per original
// batch (consecutive entries of one batch id and time), checking each
// lands at its cursor. A deleted share has no log left to read.
func replayLog(ctx context.Context, src, dst sharevat.Store, s sharevat.Share, from sharevat.Cursor) (int, error) {
	if s.Deleted {
		return 0, nil
	}
	n := 0
	for after := from; after < s.Head; {
		page, _, err := src.Read(ctx, s.ID, after, 1000)
		if err != nil {
			return n, err
		}
		if len(page) == 0 {
			return n, fmt.Errorf("the log ends at %d before its head %d", after, s.Head)
		}
		for len(page) > 0 {
			k := 1
			for k < len(page) && page[k].BatchID == page[0].BatchID && page[k].At.Equal(page[0].At) {
				k++
			}
			if err := appendReplayed(ctx, dst, s, page[:k]); err != nil {
				return n, err
			}
			n, after, page = n+k, page[k-1].Cursor, page[k:]
		}
	}
	return n, nil
}

// appendReplayed appends one original batch at its original time.
func appendReplayed(ctx context.Context, dst sharevat.Store, s sharevat.Share, es []sharevat.Entry) error {
	b := &sharevat.Batch{BatchID: es[0].BatchID, Epoch: s.Epoch}
	for _, e := range es {
		b.Ops = append(b.Ops, sharevat.Op{OpID: e.OpID, Seq: e.Seq, Kind: e.Kind, Key: e.Key, Body: e.Body, Delete: e.Delete})
	}
	ack, err := dst.Append(ctx, sharevat.AppendRequest{Share: s.ID, Batch: b, Limits: replayLimits, Now: es[0].At})
	if err != nil {
		return err
	}
	for i, r := range ack.Results {
		if r.Status != sharevat.StatusApplied || r.Cursor != es[i].Cursor {
			return fmt.Errorf("op %q replayed as %v at cursor %d, not applied at %d", es[i].OpID, r.Status, r.Cursor, es[i].Cursor)
		}
	}
	return nil
}

// replayAudit appends the audit log in order.
func replayAudit(ctx context.Context, src, dst sharevat.Store) (int, error) {
	n := 0
	for after := uint64(0); ; {
		page, err := src.AuditLog(ctx, "", after, 1000)
		if err != nil || len(page) == 0 {
			return n, err
		}
		after = page[len(page)-1].Seq
		if err := dst.Audit(ctx, page...); err != nil {
			return n, fmt.Errorf("audit: %w", err)
		}
		n += len(page)
	}
}

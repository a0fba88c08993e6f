package vaultcopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
)

// FromPostgres copies the vault of the database dsn into a new bbolt
// file at path (its directory made 0700 if missing), after o.CheckPepper
// accepted the database. Errors: EConflict when path exists.
func FromPostgres(ctx context.Context, dsn, path string, o Options) (Counts, error) {
	src, err := pg.Open(ctx, dsn, pg.Options{})
	if err != nil {
		return Counts{}, fmt.Errorf("store: %w", err)
	}
	defer src.Close()
	if err := o.checkPepper(ctx, src); err != nil {
		return Counts{}, err
	}
	if err := freshFile(path); err != nil {
		return Counts{}, err
	}
	dst, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		return Counts{}, err
	}
	n, err := Replay(ctx, src, dst)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// freshFile makes path's directory, and fails if path exists.
func freshFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return sharevat.Errorf(sharevat.EConflict, "%s already exists: migrate only into a new data directory", path)
	}
	return nil
}

// Replay writes the vault of src into the empty dst through dst's own
// writes: every share, oldest first (a fork after its parent), with its
// grants and log, then the admin grants and the audit log.
func Replay(ctx context.Context, src sharevat.Store, dst *bolt.DB) (Counts, error) {
	var n Counts
	shares, err := src.Shares(ctx)
	if err != nil {
		return n, err
	}
	slices.SortStableFunc(shares, func(a, b sharevat.Share) int { return a.Meta.CreatedAt.Compare(b.Meta.CreatedAt) })
	for _, s := range shares {
		g, ops, err := replayShare(ctx, src, dst, s)
		if err != nil {
			return n, fmt.Errorf("share %s: %w", s.ID, err)
		}
		n.Shares, n.Grants, n.Ops = n.Shares+1, n.Grants+g, n.Ops+ops
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
	n.Grants += len(admins)
	n.Audit, err = readAudit(ctx, src, func(page []sharevat.AuditRecord) error {
		if err := dst.Audit(ctx, page...); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		return nil
	})
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
	k, err := readCompacted(ctx, src, s)
	if err != nil {
		return err
	}
	state, _, err := src.Snapshot(ctx, s.ID)
	if err != nil {
		return err
	}
	return dst.CreateCompacted(ctx, s, owner, k, state)
}

package vaultcopy

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
)

// ToPostgres copies the vault of the bbolt file at path, which no
// running vat may hold, into the empty database dsn, then runs
// o.CheckPepper on it. Errors: EUnavailable when a vat holds the file,
// EConflict when the database holds a share or a grant.
func ToPostgres(ctx context.Context, path, dsn string, o Options) (Counts, error) {
	src, err := bolt.Open(path, bolt.Options{LockTimeout: time.Second})
	if err != nil {
		if sharevat.ErrorCode(err) == sharevat.EUnavailable {
			return Counts{}, fmt.Errorf("%w: a running vat holds %s; stop it first", err, path)
		}
		return Counts{}, err
	}
	defer src.Close()
	dst, err := pg.Open(ctx, dsn, pg.Options{})
	if err != nil {
		return Counts{}, fmt.Errorf("store: %w", err)
	}
	defer dst.Close()
	if err := RefuseNonEmpty(ctx, dst); err != nil {
		return Counts{}, err
	}
	n, err := Copy(ctx, src, dst)
	if err != nil {
		return n, err
	}
	return n, o.checkPepper(ctx, dst)
}

// RefuseNonEmpty fails with EConflict when st holds a share or a grant.
func RefuseNonEmpty(ctx context.Context, st sharevat.Store) error {
	shares, err := st.Shares(ctx)
	if err != nil {
		return err
	}
	admins, err := st.Grants(ctx, "")
	if err != nil {
		return err
	}
	if len(shares) > 0 || len(admins) > 0 {
		return sharevat.Errorf(sharevat.EConflict, "the database already holds a vault (%d shares, %d admin grants): migrate only into an empty one", len(shares), len(admins))
	}
	return nil
}

// Copy writes every share of src, the admin grants and the audit log
// into dst as they are. src must be stopped and dst empty; a compacted
// share needs src to be a sharevat.CompactedReader.
func Copy(ctx context.Context, src sharevat.Store, dst sharevat.VaultLoader) (Counts, error) {
	var n Counts
	shares, err := src.Shares(ctx)
	if err != nil {
		return n, err
	}
	for _, s := range shares {
		c, err := readShare(ctx, src, s)
		if err == nil {
			err = dst.LoadShare(ctx, c)
		}
		if err != nil {
			return n, fmt.Errorf("share %s: %w", s.ID, err)
		}
		n.Shares, n.Grants, n.Ops = n.Shares+1, n.Grants+len(c.Grants), n.Ops+len(c.Log)
		n.Compacted += len(c.Compacted.Ops)
	}
	admins, err := src.Grants(ctx, "")
	if err == nil {
		err = dst.LoadGrants(ctx, admins)
	}
	if err != nil {
		return n, fmt.Errorf("admin grants: %w", err)
	}
	n.Grants += len(admins)
	n.Audit, err = readAudit(ctx, src, func(page []sharevat.AuditRecord) error {
		if err := dst.LoadAudit(ctx, page); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		return nil
	})
	return n, err
}

// readShare reads everything of s the store's interface gives: a deleted
// share has its grants (all revoked; its owner grant is what the way
// back re-creates it with) and no log or state left to read. What the
// compactions kept is read after the log and state.
func readShare(ctx context.Context, src sharevat.Store, s sharevat.Share) (sharevat.ShareCopy, error) {
	c := sharevat.ShareCopy{Share: s}
	var err error
	if c.Grants, err = src.Grants(ctx, s.ID); err != nil || s.Deleted {
		return c, err
	}
	err = readLog(ctx, src, s, max(s.Earliest, 1)-1, func(page []sharevat.Entry) error {
		c.Log = append(c.Log, page...)
		return nil
	})
	if err != nil {
		return c, err
	}
	if c.State, _, err = src.Snapshot(ctx, s.ID); err != nil || s.Earliest <= 1 {
		return c, err
	}
	c.Compacted, err = readCompacted(ctx, src, s)
	return c, err
}

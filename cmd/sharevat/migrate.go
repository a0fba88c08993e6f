package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"sharevat"
	"sharevat/store/bolt"
	"sharevat/store/pg"
)

var migrateCommand = command{
	name:    "migrate",
	args:    "--from DIR --to postgres://… | --from postgres://… --to DIR --pepper-file FILE",
	summary: "copy a vault between a stopped vat's data directory and PostgreSQL",
	long: `Copies the vault of a stopped vat's data directory (--from DIR: its
sharevat.db and pepper.key) into an empty PostgreSQL database (--to
postgres://…), so that several vats can serve it (docs/several-vats.md):
every share, deleted ones included, with its metadata, settings, epoch,
log (op ids, batch ids, cursors, times, digests), op-id index, state and
what a compaction kept (the op ids it dropped, the base of a fork);
every grant with its verifier, revoked ones too, and the server's admin
grant; the audit log, keeping its sequence numbers; and the pepper's
fingerprint. No token changes: every token of the vault redeems on the
database with the same pepper, and the vat's admin.token stays valid.
Stop the vat first (a directory a running vat holds is refused), then
start the vats with --store and --pepper-file DIR/pepper.key (or
SHAREVAT_PEPPER). The database must hold no share and no grant. A
compacted share keeps the op ids of the ops compacted away (a late retry
of one is still a duplicate at its cursor) and the state it forks from.

The way back, --from postgres://… --to DIR, needs the vats' pepper
(--pepper-file, or SHAREVAT_PEPPER), writes it to DIR/pepper.key and
copies the vault into a new data directory through the bbolt store's own
writes: each share created again (a fork by forking its parent), its log
appended again batch by batch with each batch's time (the same cursors,
op ids and state), every grant as it is, deletions done again; the audit
log is appended in order, renumbered from 1. A compacted share is created
at its compaction point (the op ids of its dropped ops, its state) and its
log appended from there. Copy the vats' admin.token into DIR before starting the
vat there (a vat without one mints a new admin token and revokes the old).
Stop the vats first: ops appended meanwhile would be missed.`,
	setup: func(fs *pflag.FlagSet) runner {
		var from, to, pepperPath string
		fs.StringVar(&from, "from", "", "the stopped vat's data directory, or the database's postgres:// URL (required)")
		fs.StringVar(&to, "to", "", "the database's postgres:// URL, or a new data directory (required)")
		fs.StringVar(&pepperPath, "pepper-file", "", "from PostgreSQL: the vats' pepper ("+pepperEnv+" may hold it in base64 instead)")
		return func(ctx context.Context, env *Env) error {
			toPG, fromPG := (&storeFlags{store: to}).postgres(), (&storeFlags{store: from}).postgres()
			switch {
			case from == "" || to == "":
				return usagef("--from and --to are both required")
			case fromPG && !toPG:
				p, err := migratePepper(env, pepperPath)
				if err != nil {
					return err
				}
				return migrateBack(ctx, env, from, to, p)
			case fromPG || !toPG:
				return usagef("one of --from and --to must be a postgres:// URL, the other a data directory")
			}
			return migrate(ctx, env, from, to)
		}
	},
}

// migratePepper reads the pepper for the way back.
func migratePepper(env *Env, path string) ([]byte, error) {
	p, err := envPepper(env.Getenv)
	switch {
	case err != nil || p != nil:
		return p, err
	case path == "":
		return nil, usagef("copying from PostgreSQL needs the vats' pepper: --pepper-file FILE or %s", pepperEnv)
	}
	if p, err = os.ReadFile(path); err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	return p, nil
}

// migrate copies the vault of data directory dir into the database dsn.
func migrate(ctx context.Context, env *Env, dir, dsn string) error {
	pepper, err := os.ReadFile(filepath.Join(dir, pepperFile))
	if err != nil {
		return fmt.Errorf("pepper: %w", err)
	}
	src, err := bolt.Open(filepath.Join(dir, dbFile), bolt.Options{LockTimeout: time.Second})
	if err != nil {
		if sharevat.ErrorCode(err) == sharevat.EUnavailable {
			return fmt.Errorf("%w: a running vat holds %s; stop it first", err, dir)
		}
		return err
	}
	defer src.Close()
	dst, err := pg.Open(ctx, dsn, pg.Options{})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer dst.Close()
	if err := refuseNonEmpty(ctx, dst); err != nil {
		return err
	}
	n, err := copyVault(ctx, src, dst)
	if err != nil {
		return err
	}
	if err := checkPepperFingerprint(ctx, dst, pepper); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "migrated %d shares, %d grants, %d ops (and the op ids of %d compacted ones), %d audit records to %s\n",
		n.shares, n.grants, n.ops, n.compacted, n.audit, redactedURL(dsn))
	return nil
}

// refuseNonEmpty fails when the destination holds a share or a grant.
func refuseNonEmpty(ctx context.Context, st sharevat.Store) error {
	shares, err := st.Shares(ctx)
	if err != nil {
		return err
	}
	admins, err := st.Grants(ctx, "")
	if err != nil {
		return err
	}
	if len(shares) > 0 || len(admins) > 0 {
		return fmt.Errorf("the database already holds a vault (%d shares, %d admin grants): migrate only into an empty one", len(shares), len(admins))
	}
	return nil
}

// copied counts what copyVault wrote.
type copied struct{ shares, grants, ops, compacted, audit int }

// copyVault copies every share, the admin grants and the audit log.
func copyVault(ctx context.Context, src sharevat.Store, dst sharevat.VaultLoader) (copied, error) {
	var n copied
	shares, err := src.Shares(ctx)
	if err != nil {
		return n, err
	}
	for _, s := range shares {
		c, err := readShare(ctx, src, s)
		if err != nil {
			return n, fmt.Errorf("share %s: %w", s.ID, err)
		}
		if err := dst.LoadShare(ctx, c); err != nil {
			return n, fmt.Errorf("share %s: %w", s.ID, err)
		}
		n.shares, n.grants, n.ops = n.shares+1, n.grants+len(c.Grants), n.ops+len(c.Log)
		n.compacted += len(c.Compacted.Ops)
	}
	admins, err := src.Grants(ctx, "")
	if err == nil {
		err = dst.LoadGrants(ctx, admins)
	}
	if err != nil {
		return n, fmt.Errorf("admin grants: %w", err)
	}
	n.grants += len(admins)
	n.audit, err = copyAudit(ctx, src, dst)
	return n, err
}

// readShare reads everything of s the store's interface gives: a deleted
// share has its grants (all revoked; its owner grant is what a way back
// re-creates it with) and no log or state left to read.
func readShare(ctx context.Context, src sharevat.Store, s sharevat.Share) (sharevat.ShareCopy, error) {
	c := sharevat.ShareCopy{Share: s}
	var err error
	if c.Grants, err = src.Grants(ctx, s.ID); err != nil || s.Deleted {
		return c, err
	}
	for after := max(s.Earliest, 1) - 1; after < s.Head; {
		page, _, err := src.Read(ctx, s.ID, after, 1000)
		if err != nil {
			return c, err
		}
		if len(page) == 0 {
			return c, fmt.Errorf("the log ends at %d before its head %d", after, s.Head)
		}
		c.Log = append(c.Log, page...)
		after = page[len(page)-1].Cursor
	}
	if c.State, _, err = src.Snapshot(ctx, s.ID); err != nil {
		return c, err
	}
	return c, readCompacted(ctx, src, &c)
}

// readCompacted reads what the compactions of c's share kept beyond its
// log (the op ids of the ops they dropped, and the base) into c. It is
// read after the log and state, in a transaction of its own: the vat is
// stopped, so nothing moves in between, and the earliest cursor it was
// read at is checked against the share's.
func readCompacted(ctx context.Context, src sharevat.Store, c *sharevat.ShareCopy) error {
	if c.Share.Earliest <= 1 {
		return nil
	}
	cr, ok := src.(sharevat.CompactedReader)
	if !ok {
		return fmt.Errorf("the share was compacted, and this store cannot give the op ids of the ops it dropped")
	}
	k, err := cr.ReadCompacted(ctx, c.Share.ID)
	if err != nil {
		return err
	}
	if k.Earliest != c.Share.Earliest {
		return fmt.Errorf("the share's earliest cursor moved from %d to %d while it was read: is a vat running?", c.Share.Earliest, k.Earliest)
	}
	c.Compacted = k
	return nil
}

// copyAudit copies the audit log a page at a time.
func copyAudit(ctx context.Context, src sharevat.Store, dst sharevat.VaultLoader) (int, error) {
	n := 0
	for after := uint64(0); ; {
		page, err := src.AuditLog(ctx, "", after, 1000)
		if err != nil || len(page) == 0 {
			return n, err
		}
		if err := dst.LoadAudit(ctx, page); err != nil {
			return n, fmt.Errorf("audit: %w", err)
		}
		n += len(page)
		after = page[len(page)-1].Seq
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/vaultcopy"
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
	n, err := vaultcopy.ToPostgres(ctx, filepath.Join(dir, dbFile), dsn, vaultcopy.Options{Pepper: pepper, CheckPepper: checkPepperFingerprint})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "migrated %d shares, %d grants, %d ops (and the op ids of %d compacted ones), %d audit records to %s\n",
		n.Shares, n.Grants, n.Ops, n.Compacted, n.Audit, redactedURL(dsn))
	return nil
}

// migrateBack copies the vault of the database dsn into a new data
// directory dir, with the pepper given (checked against the database's
// fingerprint, and written to dir/pepper.key once the copy is done).
func migrateBack(ctx context.Context, env *Env, dsn, dir string, pepper []byte) error {
	path := filepath.Join(dir, pepperFile)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s already holds %s: migrate only into a new data directory", dir, pepperFile)
	}
	n, err := vaultcopy.FromPostgres(ctx, dsn, filepath.Join(dir, dbFile), vaultcopy.Options{Pepper: pepper, CheckPepper: checkPepperFingerprint})
	if err != nil {
		return err
	}
	if err := writeSecretFile(path, pepper); err != nil {
		return fmt.Errorf("pepper: %w", err)
	}
	fmt.Fprintf(env.Stdout, "migrated %d shares, %d grants, %d ops, %d audit records to %s; copy the vats' admin.token there before starting it\n",
		n.Shares, n.Grants, n.Ops, n.Audit, dir)
	return nil
}

// checkPepperFingerprint is server.CheckPepperFingerprint on the
// PostgreSQL store a migration copies to or from (vaultcopy's
// Options.CheckPepper).
func checkPepperFingerprint(ctx context.Context, db vaultcopy.Claimer, p []byte) error {
	return server.CheckPepperFingerprint(ctx, db, p)
}

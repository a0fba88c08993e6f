package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/server"
)

var adminTokenCommand = command{
	name:    "admin-token",
	args:    "--rotate [--data DIR] [--store postgres://…] [--pepper-file FILE] [--file PATH]",
	summary: "rotate the server's admin token: revoke it everywhere and write a new one",
	long: `With --rotate, revokes every live admin grant of the vault and mints a
new admin token into a file (0600; default <data>/admin.token, replaced),
without printing it. The old admin token stops working at once: its
next redeem is refused, and on PostgreSQL every running vat ends the
live capabilities made from it, as a revoke through any vat does.

On PostgreSQL (--store postgres://…, or SHAREVAT_STORE) the vats keep
running: the command connects to the database with the vats' pepper
(--pepper-file, SHAREVAT_PEPPER in base64, or <data>/pepper.key; checked
against the database's fingerprint) and mints under the same advisory
lock a starting vat mints the first admin token under, so the two never
race. Copy the new file to wherever the admin token is used
(docs/several-vats.md). Deleting admin.token does not rotate it on
PostgreSQL: a vat that finds no file beside a live admin grant only
warns.

On bbolt (--data DIR, no --store) stop the vat first (a data directory a
running vat holds is refused); there, deleting admin.token and starting
the vat rotates it too.`,
	setup: func(fs *pflag.FlagSet) runner {
		var a adminRotation
		var rotate bool
		fs.BoolVar(&rotate, "rotate", false, "revoke every admin token and mint a new one (required: the only action)")
		fs.StringVar(&a.data, "data", "./sharevat-data", "the vat's data directory: its pepper.key and admin.token, and on bbolt its sharevat.db")
		fs.StringVar(&a.store, "store", "", "the vats' database, a postgres:// URL (default $SHAREVAT_STORE); empty: the bbolt file under --data")
		fs.StringVar(&a.pepperFile, "pepper-file", "", "the vats' pepper; default <data>/pepper.key; "+pepperEnv+" may hold it in base64 instead")
		fs.StringVar(&a.file, "file", "", "where to write the new admin token (0600, replaced); default <data>/admin.token")
		return func(ctx context.Context, env *Env) error {
			if !rotate {
				return usagef("say --rotate: admin-token revokes every admin token and mints a new one")
			}
			if a.store == "" {
				a.store = env.Getenv("SHAREVAT_STORE")
			}
			if a.file == "" {
				a.file = filepath.Join(a.data, adminFile)
			}
			return a.rotate(ctx, env)
		}
	},
}

// adminRotation is what admin-token --rotate works on.
type adminRotation struct {
	data, store, pepperFile, file string
}

// rotate opens the vault, mints the new admin token (revoking the old
// ones) and writes it to a.file.
func (a *adminRotation) rotate(ctx context.Context, env *Env) error {
	sf := &storeFlags{store: a.store, pepperFile: a.pepperFile}
	if err := sf.validate(); err != nil {
		return err
	}
	out, err := newSecretFile(a.file)
	if err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	defer out.discard()
	cfg := server.Config{Data: a.data, Store: sf.store, PepperFile: sf.pepperFile}
	if sf.postgres() {
		if cfg.Pepper, err = envPepper(env.Getenv); err != nil {
			return err
		}
	}
	m, err := server.RotateAdmin(ctx, cfg)
	if err != nil {
		return err
	}
	if err := out.commit([]byte(m.Token + "\n")); err != nil {
		return fmt.Errorf("the old admin token is revoked, but the new one could not be written (run admin-token --rotate again): %w", err)
	}
	fmt.Fprintf(env.Stdout, "admin token rotated: the new one is in %s (grant %s); every earlier admin token is revoked\n", a.file, m.GrantID)
	return nil
}

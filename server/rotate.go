package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/vat"
)

// RotateAdmin revokes every live admin grant of the vault cfg names
// (Data, Store, PepperFile, Pepper) and mints a new admin token, which it
// returns and does not write. On PostgreSQL the vats may keep running:
// it mints under the advisory lock a starting vat mints the first admin
// token under, with the pepper checked against the database's
// fingerprint. On bbolt the vat must be stopped: a data directory a
// running vat holds is refused (EUnavailable). It never creates a
// pepper.
func RotateAdmin(ctx context.Context, cfg Config) (sharevat.Minted, error) {
	if cfg.postgres() {
		return rotatePG(ctx, &cfg)
	}
	return rotateBolt(ctx, &cfg)
}

// rotatePG mints on the database, under the lock serve's first admin
// token is minted under.
func rotatePG(ctx context.Context, cfg *Config) (sharevat.Minted, error) {
	st, err := pg.Open(ctx, cfg.Store, pg.Options{})
	if err != nil {
		return sharevat.Minted{}, fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	p := cfg.Pepper
	if p == nil {
		p, err = readPepper(cfg.pepperPath())
	}
	if err != nil {
		return sharevat.Minted{}, err
	}
	if err := CheckPepperFingerprint(ctx, st, p); err != nil {
		return sharevat.Minted{}, err
	}
	var m sharevat.Minted
	err = st.Exclusive(ctx, AdminLock, func() error {
		m, err = mintAdmin(ctx, st, p)
		return err
	})
	return m, err
}

// rotateBolt mints on the bbolt file of a stopped vat.
func rotateBolt(ctx context.Context, cfg *Config) (sharevat.Minted, error) {
	if err := CheckDataFile(cfg.Data); err != nil {
		return sharevat.Minted{}, err
	}
	p, err := readPepper(cfg.pepperPath())
	if err != nil {
		return sharevat.Minted{}, err
	}
	db, err := bolt.Open(filepath.Join(cfg.Data, DBFile), bolt.Options{LockTimeout: time.Second})
	if err != nil {
		if sharevat.ErrorCode(err) == sharevat.EUnavailable {
			return sharevat.Minted{}, fmt.Errorf("%w: a running vat holds %s; stop it first (or delete its admin.token and restart it)", err, cfg.Data)
		}
		return sharevat.Minted{}, err
	}
	defer db.Close()
	return mintAdmin(ctx, db, p)
}

// readPepper reads an existing pepper file; rotating never creates one.
func readPepper(path string) ([]byte, error) {
	p, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the pepper file %s is missing: give the vats' pepper (--pepper-file, or %s)", path, PepperEnv)
	}
	if err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	if len(p) < sturdyref.MinPepperLen {
		return nil, fmt.Errorf("pepper file %s is damaged (%d bytes)", path, len(p))
	}
	return p, nil
}

// mintAdmin revokes every live admin grant of st and mints a new admin
// token through a vat of its own, with no background work.
func mintAdmin(ctx context.Context, st sharevat.Store, pepper []byte) (sharevat.Minted, error) {
	ver, err := sturdyref.NewVerifier(pepper)
	if err != nil {
		return sharevat.Minted{}, err
	}
	log := slog.New(slog.DiscardHandler)
	v, err := vat.New(vat.Config{Store: st, Verifier: ver, Logger: log, Retention: vat.Retention{Every: -1}})
	if err != nil {
		return sharevat.Minted{}, err
	}
	m, err := v.MintAdminToken(ctx)
	return m, errors.Join(err, CloseVat(v))
}

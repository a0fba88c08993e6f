package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/vat"
)

// servedStore is the store serve runs the vat on, and what differs
// between the two kinds: bolt or pg is set.
type servedStore struct {
	sharevat.Store
	bolt  *bolt.DB
	pg    *pg.Store
	where string // named in the log: the data directory, or the database's URL without its password
}

// openStore opens the vault the flags name and hooks its figures into m.
func openStore(ctx context.Context, cfg *Config, m *metrics, log *slog.Logger) (*servedStore, error) {
	if !cfg.postgres() {
		if err := CheckDataFile(cfg.Data); err != nil {
			return nil, err
		}
		opts := bolt.Options{OnCommit: m.Committed, Logger: log}
		cfg.WAL.apply(&opts)
		db, err := bolt.Open(filepath.Join(cfg.Data, DBFile), opts)
		if err != nil {
			return nil, err
		}
		m.watchStore(db.Size)
		return &servedStore{Store: db, bolt: db, where: cfg.Data}, nil
	}
	st, err := pg.Open(ctx, cfg.Store, pg.Options{OnCommit: m.Committed, Logger: log, OnNotice: m.noticeLag()})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	m.watchPool(st.PoolStat)
	return &servedStore{Store: st, pg: st, where: RedactedURL(cfg.Store)}, nil
}

// apply sets the log's options on opts.
func (w WAL) apply(opts *bolt.Options) {
	opts.NoWAL = w.Off
	opts.WALDir = w.Dir
	opts.MaxPendingBytes = w.MaxPendingBytes
	opts.ApplyEvery = w.ApplyEvery
	opts.ApplyBytes = w.ApplyBytes
}

// IsPostgresURL reports whether store names a PostgreSQL database.
func IsPostgresURL(store string) bool {
	return strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://")
}

// pepperPath is the pepper file the server reads.
func (c *Config) pepperPath() string {
	if c.PepperFile != "" {
		return c.PepperFile
	}
	return filepath.Join(c.Data, PepperFile)
}

// RedactedURL is a postgres:// URL without its password.
func RedactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// pepper loads the pepper: on bbolt from the pepper file, created on
// first start; on PostgreSQL from SHAREVAT_PEPPER or the pepper file,
// created only while the database holds no grant, and checked against
// the fingerprint the first vat recorded in the database, so that a vat
// given another pepper refuses to start.
func (s *servedStore) pepper(ctx context.Context, cfg *Config) ([]byte, error) {
	if s.pg == nil {
		return loadOrCreatePepper(ctx, cfg.pepperPath(), s)
	}
	p := cfg.Pepper
	var err error
	if p == nil {
		path := cfg.pepperPath()
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) && refuseIfGranted(ctx, s, path) != nil {
			return nil, fmt.Errorf("the pepper file %s is missing and the database already holds grants: give this vat the pepper of the vats already on the database (copy their pepper.key, or set --pepper-file or %s)", path, PepperEnv)
		}
		p, err = loadOrCreatePepper(ctx, path, s)
	}
	if err != nil {
		return nil, err
	}
	return p, CheckPepperFingerprint(ctx, s.pg, p)
}

// pepperFingerprintName is the vault row of the pepper's fingerprint.
const pepperFingerprintName = "pepper_fingerprint"

// pepperFingerprint identifies a pepper without revealing it: an HMAC
// keyed with it.
func pepperFingerprint(p []byte) []byte {
	mac := hmac.New(sha256.New, p)
	mac.Write([]byte("sharevat pepper fingerprint v1"))
	return mac.Sum(nil)
}

// Claimer keeps the first value stored under a name and returns it
// (store/pg's Store.Claim).
type Claimer interface {
	Claim(ctx context.Context, name string, value []byte) ([]byte, error)
}

// CheckPepperFingerprint records p's fingerprint in the database if none
// is, and fails if the recorded one is another pepper's.
func CheckPepperFingerprint(ctx context.Context, st Claimer, p []byte) error {
	want := pepperFingerprint(p)
	got, err := st.Claim(ctx, pepperFingerprintName, want)
	if err != nil {
		return fmt.Errorf("pepper: %w", err)
	}
	if !hmac.Equal(got, want) {
		return fmt.Errorf("this vat's pepper is not the one the database's tokens were made with: every vat on one database needs the same pepper (copy pepper.key from the first vat, or set --pepper-file or %s)", PepperEnv)
	}
	return nil
}

// AdminLock is the advisory lock key under which a vat on PostgreSQL
// mints the first admin token ("shvm"; store/pg's own locks are "shvt"
// and "shva").
const AdminLock = 0x7368766d

// ensureAdmin makes sure the admin token exists: on bbolt, as
// ensureAdminToken; on PostgreSQL, where every vat shares one admin
// token, only the first vat to start on a database without a live admin
// grant mints it (under an advisory lock) into its <data>/admin.token;
// another vat without the file logs where to copy it from. Rotating it
// is RotateAdmin (rotate.go), under the same lock.
func (s *servedStore) ensureAdmin(ctx context.Context, v *vat.Vat, dir string, log *slog.Logger) error {
	if s.pg == nil {
		return ensureAdminToken(ctx, v, dir, log)
	}
	ok, err := adminTokenExists(dir)
	if err != nil || ok {
		return err
	}
	return s.pg.Exclusive(ctx, AdminLock, func() error {
		admins, err := s.Grants(ctx, "")
		if err != nil {
			return err
		}
		for _, g := range admins {
			if !g.Revoked {
				log.Warn("the database's admin token was minted by another vat: copy its admin.token here to use it with --token-file, or mint a new one (revoking it) with sharevat admin-token --rotate", "path", filepath.Join(dir, AdminFile))
				return nil
			}
		}
		return ensureAdminToken(ctx, v, dir, log)
	})
}

// backupRoute is GET /backup: the bbolt file's copy, or on PostgreSQL a
// refusal that says how to back the database up.
func (s *servedStore) backupRoute(v *vat.Vat, log *slog.Logger) http.Handler {
	if s.bolt != nil {
		return backupHandler(vatAdminRedeemer(v), s.bolt, log)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "sharevat: this vat keeps its vault in PostgreSQL; /backup copies only the bbolt file: back the database up with pg_dump (docs/several-vats.md)", http.StatusNotImplemented)
	})
}

package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"sharevat"
	"sharevat/store/bolt"
	"sharevat/store/pg"
	"sharevat/sturdyref"
	"sharevat/vat"
)

// pepperEnv holds the pepper itself, base64-encoded, for deployments
// that hand secrets to processes in the environment; it wins over
// --pepper-file.
const pepperEnv = "SHAREVAT_PEPPER"

// storeFlags choose where serve keeps the vault.
type storeFlags struct {
	store      string // "" (bbolt under --data) or a postgres:// URL
	pepperFile string // "" is <data>/pepper.key
}

func (f *storeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.store, "store", "", "where the vault is kept: empty for the embedded bbolt file under --data, or a PostgreSQL URL (postgres://user:password@host/db) that several vats share (docs/several-vats.md)")
	fs.StringVar(&f.pepperFile, "pepper-file", "", "the pepper (the key token verifiers are made with; every vat on one database needs the same one); default <data>/pepper.key; "+pepperEnv+" may hold the pepper itself in base64 instead")
}

// postgres reports whether the vault is in PostgreSQL.
func (f *storeFlags) postgres() bool {
	return strings.HasPrefix(f.store, "postgres://") || strings.HasPrefix(f.store, "postgresql://")
}

func (f *storeFlags) validate() error {
	if f.store != "" && !f.postgres() {
		return usagef("bad --store: want empty (the bbolt file under --data) or a postgres:// URL")
	}
	return nil
}

// pepperPath is the pepper file serve reads.
func (f *storeFlags) pepperPath(data string) string {
	if f.pepperFile != "" {
		return f.pepperFile
	}
	return filepath.Join(data, pepperFile)
}

// servedStore is the store serve runs the vat on, and what differs
// between the two kinds: bolt or pg is set.
type servedStore struct {
	sharevat.Store
	bolt  *bolt.DB
	pg    *pg.Store
	where string // named in the log: the data directory, or the database's URL without its password
}

// openStore opens the vault the flags name and hooks its figures into m.
func openStore(ctx context.Context, f *serveFlags, m *metrics, log *slog.Logger) (*servedStore, error) {
	if !f.stores.postgres() {
		if err := checkDataFile(f.data); err != nil {
			return nil, err
		}
		opts := bolt.Options{OnCommit: m.Committed, Logger: log}
		f.wal.apply(&opts)
		db, err := bolt.Open(filepath.Join(f.data, dbFile), opts)
		if err != nil {
			return nil, err
		}
		m.watchStore(db.Size)
		return &servedStore{Store: db, bolt: db, where: f.data}, nil
	}
	st, err := pg.Open(ctx, f.stores.store, pg.Options{OnCommit: m.Committed, Logger: log, OnNotice: m.noticeLag()})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	m.watchPool(st.PoolStat)
	return &servedStore{Store: st, pg: st, where: redactedURL(f.stores.store)}, nil
}

// redactedURL is a postgres:// URL without its password.
func redactedURL(s string) string {
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
func (s *servedStore) pepper(ctx context.Context, f *serveFlags, getenv func(string) string) ([]byte, error) {
	if s.pg == nil {
		return loadOrCreatePepper(ctx, f.stores.pepperPath(f.data), s)
	}
	p, err := envPepper(getenv)
	if p == nil && err == nil {
		path := f.stores.pepperPath(f.data)
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) && refuseIfGranted(ctx, s, path) != nil {
			return nil, fmt.Errorf("the pepper file %s is missing and the database already holds grants: give this vat the pepper of the vats already on the database (copy their pepper.key, or set --pepper-file or %s)", path, pepperEnv)
		}
		p, err = loadOrCreatePepper(ctx, path, s)
	}
	if err != nil {
		return nil, err
	}
	return p, checkPepperFingerprint(ctx, s.pg, p)
}

// envPepper decodes SHAREVAT_PEPPER; nil when it is not set.
func envPepper(getenv func(string) string) ([]byte, error) {
	v := strings.TrimSpace(getenv(pepperEnv))
	if v == "" {
		return nil, nil
	}
	p, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(p) < sturdyref.MinPepperLen {
		return nil, usagef("bad %s: want the pepper file's bytes in base64 (base64 -w0 pepper.key), at least %d bytes", pepperEnv, sturdyref.MinPepperLen)
	}
	return p, nil
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

// checkPepperFingerprint records p's fingerprint in the database if none
// is, and fails if the recorded one is another pepper's.
func checkPepperFingerprint(ctx context.Context, st *pg.Store, p []byte) error {
	want := pepperFingerprint(p)
	got, err := st.Claim(ctx, pepperFingerprintName, want)
	if err != nil {
		return fmt.Errorf("pepper: %w", err)
	}
	if !hmac.Equal(got, want) {
		return fmt.Errorf("this vat's pepper is not the one the database's tokens were made with: every vat on one database needs the same pepper (copy pepper.key from the first vat, or set --pepper-file or %s)", pepperEnv)
	}
	return nil
}

// adminLock is the advisory lock key under which a vat on PostgreSQL
// mints the first admin token ("shvm"; store/pg's own locks are "shvt"
// and "shva").
const adminLock = 0x7368766d

// ensureAdmin makes sure the admin token exists: on bbolt, as
// ensureAdminToken; on PostgreSQL, where every vat shares one admin
// token, only the first vat to start on a database without a live admin
// grant mints it (under an advisory lock) into its <data>/admin.token;
// another vat without the file logs where to copy it from. Rotating it
// is admin-token --rotate (admintoken.go), under the same lock.
func (s *servedStore) ensureAdmin(ctx context.Context, v *vat.Vat, dir string, log *slog.Logger) error {
	if s.pg == nil {
		return ensureAdminToken(ctx, v, dir, log)
	}
	ok, err := adminTokenExists(dir)
	if err != nil || ok {
		return err
	}
	return s.pg.Exclusive(ctx, adminLock, func() error {
		admins, err := s.Grants(ctx, "")
		if err != nil {
			return err
		}
		for _, g := range admins {
			if !g.Revoked {
				log.Warn("the database's admin token was minted by another vat: copy its admin.token here to use it with --token-file, or mint a new one (revoking it) with sharevat admin-token --rotate", "path", filepath.Join(dir, adminFile))
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

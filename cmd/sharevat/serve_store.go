package main

import (
	"encoding/base64"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/sturdyref"
)

// pepperEnv holds the pepper itself, base64-encoded, for deployments
// that hand secrets to processes in the environment; it wins over
// --pepper-file.
const pepperEnv = server.PepperEnv

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
	return server.IsPostgresURL(f.store)
}

func (f *storeFlags) validate() error {
	if f.store != "" && !f.postgres() {
		return usagef("bad --store: want empty (the bbolt file under --data) or a postgres:// URL")
	}
	return nil
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

// redactedURL is a postgres:// URL without its password.
func redactedURL(s string) string { return server.RedactedURL(s) }

package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

// Files in the data directory.
const (
	DBFile     = "sharevat.db"
	PepperFile = "pepper.key"  // the verifier key; 0600; losing it invalidates every token
	AdminFile  = "admin.token" // the admin token; 0600
)

// PepperEnv is the environment variable that may hold the pepper itself,
// base64-encoded, for deployments that hand secrets to processes in the
// environment; cmd/sharevat decodes it into Config.Pepper.
const PepperEnv = "SHAREVAT_PEPPER"

// loadOrCreatePepper reads the pepper file at path, creating it with
// fresh random bytes on first start: only while the vault holds no grant.
// A missing pepper beside grants is refused, since a new one would
// silently kill every token of every share.
func loadOrCreatePepper(ctx context.Context, path string, db sharevat.Store) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := refuseIfGranted(ctx, db, path); err != nil {
			return nil, err
		}
		return createPepper(path)
	}
	if err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	if len(b) < sturdyref.MinPepperLen {
		return nil, fmt.Errorf("pepper file %s is damaged (%d bytes); restore it from a backup", path, len(b))
	}
	return b, nil
}

// refuseIfGranted fails when the vault holds any grant (a share, whose
// owner grant it holds, or an admin grant) while the pepper at path is
// missing.
func refuseIfGranted(ctx context.Context, db sharevat.Store, path string) error {
	shares, err := db.Shares(ctx)
	if err != nil {
		return err
	}
	admins, err := db.Grants(ctx, "")
	if err != nil {
		return err
	}
	if len(shares) == 0 && len(admins) == 0 {
		return nil
	}
	return fmt.Errorf("the pepper file %s is missing but the vault holds grants (%d shares, %d admin grants): a new pepper would make every token invalid; restore it from a backup (or, to start a new empty vault, move the data directory aside)", path, len(shares), len(admins))
}

// CheckDataFile refuses to start when the data file is missing or empty
// while the pepper or the admin token shows the directory held a vault:
// only a fresh directory may start a new, empty vault.
func CheckDataFile(dir string) error {
	path := filepath.Join(dir, DBFile)
	state := "missing"
	if fi, err := os.Stat(path); err == nil {
		if fi.Size() > 0 {
			return nil
		}
		state = "empty"
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("data file: %w", err)
	}
	for _, name := range []string{AdminFile, PepperFile} {
		other := filepath.Join(dir, name)
		if _, err := os.Stat(other); err == nil {
			return fmt.Errorf("the data file %s is %s but %s exists: the data file was lost or truncated; restore it from a backup (or, to start a new empty vault, move the directory aside)", path, state, other)
		}
	}
	return nil
}

func createPepper(path string) ([]byte, error) {
	p, err := sturdyref.NewPepper(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	if err := WriteSecretFile(path, p); err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	return p, nil
}

// WriteSecretFile writes data to a new 0600 file, durably, failing if the
// file exists.
func WriteSecretFile(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, path)
	}
	os.Remove(tmp)
	return err
}

// adminTokenExists reports whether <data>/admin.token holds a token.
func adminTokenExists(dir string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, AdminFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(b)) != "", nil
}

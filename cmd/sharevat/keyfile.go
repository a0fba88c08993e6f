package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sharevat/sturdyref"
)

// Files in the data directory.
const (
	dbFile     = "sharevat.db"
	pepperFile = "pepper.key"  // the verifier key; 0600; losing it invalidates every token
	adminFile  = "admin.token" // the admin token; 0600
)

// loadOrCreatePepper reads the pepper file, creating it with fresh random
// bytes on first start.
func loadOrCreatePepper(dir string) ([]byte, error) {
	path := filepath.Join(dir, pepperFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
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

func createPepper(path string) ([]byte, error) {
	p, err := sturdyref.NewPepper(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	if err := writeSecretFile(path, p); err != nil {
		return nil, fmt.Errorf("pepper: %w", err)
	}
	return p, nil
}

// writeSecretFile writes data to a new 0600 file, durably, failing if the
// file exists.
func writeSecretFile(path string, data []byte) error {
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
	b, err := os.ReadFile(filepath.Join(dir, adminFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(b)) != "", nil
}

package main

import (
	"os"
	"path/filepath"
)

// secretFile replaces a file holding a secret: a 0600 temporary file in
// the same directory, made before the secret exists (so a directory that
// cannot be written fails first), renamed over the target by commit.
type secretFile struct {
	path string
	tmp  *os.File
	done bool
}

// newSecretFile makes the temporary file for path.
func newSecretFile(path string) (*secretFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	return &secretFile{path: path, tmp: tmp}, nil
}

// commit writes data durably and renames it over the target.
func (s *secretFile) commit(data []byte) error {
	_, err := s.tmp.Write(data)
	if err == nil {
		err = s.tmp.Sync()
	}
	if cerr := s.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(s.tmp.Name(), s.path)
	}
	if err != nil {
		return err
	}
	s.done = true
	if d, err := os.Open(filepath.Dir(s.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// discard removes the temporary file unless commit renamed it.
func (s *secretFile) discard() {
	if s.done {
		return
	}
	s.tmp.Close()
	os.Remove(s.tmp.Name())
}

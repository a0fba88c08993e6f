package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sharevat/sharevat/exportfile"
)

// An import records what it did in the state directory, under
// imports/, in two files named by the import's key (a digest of the
// server URL and the export's identity):
//
//	<key>.json  the import state: the share it creates, how many of the
//	            input's ops are acknowledged, whether it completed
//	<key>.db    its outbox (client.Outbox): the ops handed over but not
//	            yet acknowledged, with their batch ids
//
// A re-run of the same import (same server, same export) finds both: it
// skips the ops already acknowledged, lets the outbox resend the pending
// ones under their original batch ids, and appends the rest. Nothing is
// applied twice because every op keeps its op id. The outbox's lock is
// the import's: two runs of one import never overlap. No token is ever
// written; a re-run gets its token from --into, or mints a new owner
// token for the recorded share with the admin token (Admin.resetOwner).

// importState is the <key>.json file.
type importState struct {
	Key      string `json:"key"`
	Server   string `json:"server"`
	Source   string `json:"source"` // the export's identity
	Share    string `json:"share"`  // the share the ops go to
	Total    int    `json:"total"`  // ops in the input
	Done     int    `json:"done"`   // the first Done ops of the input are acknowledged
	Rejected int    `json:"rejected"`
	Complete bool   `json:"complete"`
	Started  string `json:"started"`
	Updated  string `json:"updated"`

	path string
}

// importKey names the import of source into the vat at server.
func importKey(server, source string) string {
	sum := sha256.Sum256([]byte(server + "\n" + source))
	return hex.EncodeToString(sum[:16])
}

// importDir is the directory of import states under the state dir.
func importDir(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, "imports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return dir, nil
}

// loadImportState reads the state at path; a missing file is a fresh
// state (Share "").
func loadImportState(path, key, server, source string) (*importState, error) {
	st := &importState{Key: key, Server: server, Source: source, path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("import state: %w", err)
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("import state %s is damaged (%v); move it aside, or pass --new to import into a new share", path, err)
	}
	st.path = path
	return st, nil
}

// save writes the state durably: a temporary file, synced, renamed.
func (st *importState) save() error {
	now := exportfile.RFC3339(time.Now())
	if st.Started == "" {
		st.Started = now
	}
	st.Updated = now
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := st.path + ".tmp"
	err = writeSynced(tmp, append(b, '\n'))
	if err == nil {
		err = os.Rename(tmp, st.path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(st.path))
	}
	if err != nil {
		return fmt.Errorf("import state: %w", err)
	}
	return nil
}

// writeSynced writes data to a new 0600 file at path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
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
	return err
}

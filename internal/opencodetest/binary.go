package opencodetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Version is the opencode release interop/opencode/package.json pins.
const Version = "1.18.33"

// BinaryEnv names an environment variable that, when set, points at the
// opencode binary to use instead of interop/opencode's.
const BinaryEnv = "SHAREVAT_OPENCODE"

// Binary returns the path of the pinned opencode binary
// (interop/opencode/node_modules/.bin/opencode, installed by
// `(cd interop/opencode && npm ci)`, which .ci/run does), or the one
// BinaryEnv names. It skips the test with a NOTICE when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(BinaryEnv); p != "" {
		return p
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("opencodetest: %v", err)
	}
	p := filepath.Join(root, "interop", "opencode", "node_modules", ".bin", "opencode")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("NOTICE: the opencode binary is not installed (%s missing): the real-opencode tests did not run; run `(cd interop/opencode && npm ci)`", p)
	}
	return p
}

// repoRoot is the directory holding go.mod, found from the test's
// working directory upwards.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

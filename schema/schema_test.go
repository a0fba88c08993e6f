package schema_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestGeneratedCodeIsCurrent fails when a .capnp file changed after the Go
// code was generated from it. (`make check-generate` does the full check
// with the compiler; this one needs only Go.)
func TestGeneratedCodeIsCurrent(t *testing.T) {
	sums, err := os.ReadFile("capnp.sum")
	if err != nil {
		t.Fatalf("read capnp.sum: %v (run 'make generate')", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		want, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("capnp.sum: malformed line %q", line)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		got := sha256.Sum256(src)
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("%s changed since its Go code was generated: run 'make generate' and commit", name)
		}
	}
}

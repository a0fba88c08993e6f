package schema_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestReadmeGoCapnpPin: README.md tells non-Go implementers to fetch
// go.capnp (which sharevat.capnp imports) from a go-capnp release and check
// its SHA-256. Invariant: that release is the go-capnp version go.mod pins,
// and the checksum is that of std/go.capnp in it, so the instructions keep
// working when go-capnp is upgraded only if the README is updated too.
func TestReadmeGoCapnpPin(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	url := regexp.MustCompile(`https://raw\.githubusercontent\.com/capnproto/go-capnp/(v[^/\s]+)/std/go\.capnp`).FindSubmatch(readme)
	sum := regexp.MustCompile(`\b([0-9a-f]{64})  capnp-import/go\.capnp`).FindSubmatch(readme)
	if url == nil || sum == nil {
		t.Fatal("README.md: the go.capnp download URL or its sha256sum line is missing")
	}

	out, err := exec.Command("go", "list", "-m", "-json", "capnproto.org/go/capnp/v3").Output()
	if err != nil {
		t.Fatalf("go list -m capnproto.org/go/capnp/v3: %v", err)
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatalf("go list -m -json: %v", err)
	}
	if got, want := string(url[1]), mod.Version; got != want {
		t.Errorf("README.md fetches go.capnp from go-capnp %s; go.mod pins %s", got, want)
	}
	src, err := os.ReadFile(filepath.Join(mod.Dir, "std", "go.capnp"))
	if err != nil {
		t.Fatalf("go-capnp's std/go.capnp: %v", err)
	}
	h := sha256.Sum256(src)
	if got, want := string(sum[1]), hex.EncodeToString(h[:]); got != want {
		t.Errorf("README.md gives go.capnp's sha256 as %s; go-capnp %s's is %s", got, mod.Version, want)
	}
}

package packaging_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
	"github.com/sharevat/sharevat/server"
)

// goBlocks returns the ```go blocks of a Markdown file's section (from
// the heading to the next "## ").
func goBlocks(t *testing.T, file, heading string) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", file, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for _, part := range strings.Split(section, "```go\n")[1:] {
		code, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, code)
	}
	return blocks
}

// outOfTree writes files into a new module that requires this repository
// through a replace directive, builds its commands into its bin/ and
// returns the module's directory.
func outOfTree(t *testing.T, files map[string]string) string {
	t.Helper()
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["go.mod"] = "module example.com/hello\n\ngo 1.26.8\n\nrequire github.com/sharevat/sharevat v0.0.0\n\nreplace github.com/sharevat/sharevat => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum")) // the same dependencies
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", "bin/", "./...")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod") // fills in go.mod's indirect requirements
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in a module outside the repository: %v\n%s", err, out)
	}
	return dir
}

// TestOutOfTreeModule: the two Go programs of docs/guide.md's "From Go",
// a client and an embedded vat, build in a module of their own against
// this repository; the vat serves, and the client appends to a share on
// it (applied, then a duplicate on the second run); the vat stops on
// SIGTERM with exit code 0.
func TestOutOfTreeModule(t *testing.T) {
	blocks := goBlocks(t, "docs/guide.md", "## From Go")
	if len(blocks) != 2 || !strings.Contains(blocks[0], `"github.com/sharevat/sharevat/client"`) ||
		!strings.Contains(blocks[1], `"github.com/sharevat/sharevat/server"`) {
		t.Fatalf("docs/guide.md's From Go should hold two go blocks, a client and an embedded vat; found %d", len(blocks))
	}
	dir := outOfTree(t, map[string]string{"hello/main.go": blocks[0], "myvat/main.go": blocks[1]})
	vat, err := proctest.StartIn(t, dir, filepath.Join(dir, "bin", "myvat"), nil, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	token := createShare(t, vat.URL, filepath.Join(dir, "vat-data", server.AdminFile))
	for _, want := range []string{"applied 1, duplicate 0; head is 1", "applied 0, duplicate 1; head is 1"} {
		hello := exec.Command(filepath.Join(dir, "bin", "hello"))
		hello.Env = append(os.Environ(), "SHAREVAT_URL="+vat.URL, "SHAREVAT_TOKEN="+token)
		out, err := hello.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("hello: %v, printed %q, want %q", err, out, want)
		}
	}
	vat.Stop(t)
	if err := vat.Err(); err != nil {
		t.Errorf("the embedded vat exited with %v after SIGTERM:\n%s", err, vat.Log)
	}
}

// createShare creates a share with the admin token in file and returns
// its owner token.
func createShare(t *testing.T, url, file string) string {
	t.Helper()
	admin, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	a, err := conn.RedeemAdmin(ctx, strings.TrimSpace(string(admin)))
	if err != nil {
		t.Fatal(err)
	}
	_, owner, err := a.CreateShare(ctx, sharevat.MetaPatch{})
	if err != nil {
		t.Fatal(err)
	}
	return owner.Token
}

package main_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testVersion = "v0.1.0-disttest"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
)

// dist runs the dist command for this machine's platform into a new
// directory and returns it and the archive's name.
func dist(t *testing.T) (dir, archive string) {
	t.Helper()
	dir = t.TempDir()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	out, err := exec.Command("go", "run", ".", "-out", dir, "-version", testVersion, "-commit", testCommit, "-platforms", platform).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir, fmt.Sprintf("sharevat_%s_%s_%s.tar.gz", testVersion, runtime.GOOS, runtime.GOARCH)
}

// TestDistArchive: the archive holds the stamped binary (its `version`
// prints the version and commit), LICENSE, README.md and CHANGELOG.md
// under one directory, every entry root's with one time; SHA256SUMS
// names it with its sum; no build path is in the binary; and a second
// run gives the same bytes.
func TestDistArchive(t *testing.T) {
	dir, archive := dist(t)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	require.NoError(t, err)
	if _, err := exec.LookPath("sha256sum"); err == nil {
		check := exec.Command("sha256sum", "-c", "SHA256SUMS")
		check.Dir = dir
		out, err := check.CombinedOutput()
		require.NoError(t, err, "sha256sum -c: %s", out)
		assert.Equal(t, archive+": OK\n", string(out))
	} else {
		t.Logf("NOTICE: no sha256sum on PATH: SHA256SUMS is checked by name only")
		assert.Contains(t, string(sums), "  "+archive+"\n")
	}

	files := readArchive(t, filepath.Join(dir, archive))
	base := strings.TrimSuffix(archive, ".tar.gz")
	for _, name := range []string{"sharevat", "LICENSE", "README.md", "CHANGELOG.md"} {
		assert.Contains(t, files, base+"/"+name)
	}
	bin := filepath.Join(t.TempDir(), "sharevat")
	require.NoError(t, os.WriteFile(bin, files[base+"/sharevat"], 0o755))
	got, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	lines := strings.Split(string(got), "\n")
	assert.Equal(t, "sharevat "+testVersion, lines[0], "the stamped version")
	assert.Equal(t, "commit "+testCommit, lines[1], "the stamped commit")

	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	for _, path := range []string{root, strings.TrimSpace(string(modcache))} {
		assert.False(t, bytes.Contains(files[base+"/sharevat"], []byte(path)), "the binary holds the build path %s", path)
	}

	again, _ := dist(t)
	sums2, err := os.ReadFile(filepath.Join(again, "SHA256SUMS"))
	require.NoError(t, err)
	assert.Equal(t, string(sums), string(sums2), "a second build gives the same archive")
}

// readArchive returns a .tar.gz's regular files by name, checking that
// every entry is root's and has the same time.
func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	assert.Empty(t, zr.Name, "gzip records no file name")
	assert.True(t, zr.ModTime.IsZero(), "gzip records no time")
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	var first *tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		if first == nil {
			first = h
		}
		assert.Equal(t, first.ModTime, h.ModTime, "%s: one time for every entry", h.Name)
		assert.Equal(t, 0, h.Uid, h.Name)
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = b
		}
	}
}

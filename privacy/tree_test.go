package privacy_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sharevat/sharevat/privacy"
)

// TestTreeFalsePositives measures false positives over real source
// trees that hold no secret: with PRIVACY_TREES set (directories,
// separated by ':'; "go" stands for GOROOT's src and doc and the module
// cache), it scans every text file under them, test files and testdata
// left out, each as the body {"text": <file>}, logs every match (its
// rule, file and the 12 bytes before it, never the match), the count by
// rule and the bytes scanned, and fails when there are more matches than
// PRIVACY_TREES_MAX (default 0). Without PRIVACY_TREES it is skipped:
// it reads ~250 MB. With PRIVACY_TREES_CHUNK=N each file is instead the
// body {"chunks": [...]}, its text cut every N bytes, so the scan across
// strings (join.go) runs at every cut.
//
//	PRIVACY_TREES=go PRIVACY_TREES_MAX=5 go test -run TestTreeFalsePositives -v ./privacy
func TestTreeFalsePositives(t *testing.T) {
	dirs := treeDirs(os.Getenv("PRIVACY_TREES"))
	if len(dirs) == 0 {
		t.Skip("set PRIVACY_TREES to measure false positives over source trees")
	}
	limit, _ := strconv.Atoi(os.Getenv("PRIVACY_TREES_MAX"))
	chunk, _ := strconv.Atoi(os.Getenv("PRIVACY_TREES_CHUNK"))
	byRule := map[string]int{}
	var scanned int64
	total := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "cache" && filepath.Dir(path) == dir {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, "_test.go") || !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil || len(b) > 4<<20 || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
				return nil
			}
			scanned += int64(len(b))
			body := treeBody(string(b), chunk)
			for _, m := range privacy.Scan(body) {
				total++
				byRule[m.Rule]++
				t.Logf("%s: %s after %q", m.Rule, path, body[max(0, m.Start-12):m.Start])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		t.Logf("%-24s %d", r, byRule[r])
	}
	t.Logf("%d matches in %d MB", total, scanned>>20)
	if total > limit {
		t.Errorf("%d matches over the trees, more than PRIVACY_TREES_MAX=%d", total, limit)
	}
}

// treeDirs expands PRIVACY_TREES.
func treeDirs(spec string) []string {
	var out []string
	for _, d := range strings.Split(spec, ":") {
		switch d {
		case "":
		case "go":
			root := goEnv("GOROOT")
			out = append(out, filepath.Join(root, "src"), filepath.Join(root, "doc"), goEnv("GOMODCACHE"))
		default:
			out = append(out, d)
		}
	}
	return out
}

// goEnv returns a go env variable.
func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// treeBody is the body a file is scanned as: {"text": text}, or, with
// chunk > 0, {"chunks": [...]} holding text cut every chunk bytes (at a
// character's start).
func treeBody(text string, chunk int) []byte {
	if chunk <= 0 {
		b, _ := json.Marshal(map[string]string{"text": text})
		return b
	}
	var parts []string
	for len(text) > chunk {
		n := chunk
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		parts, text = append(parts, text[:n]), text[n:]
	}
	b, _ := json.Marshal(map[string][]string{"chunks": append(parts, text)})
	return b
}

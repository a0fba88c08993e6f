package packaging_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestDockerignore: the build context keeps .git, so that go build stamps
// the VCS revision, and every tracked file, so that the stamp does not say
// "modified". Invariant: no .dockerignore pattern matches .git or a file
// git tracks.
func TestDockerignore(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, "!\\") {
			t.Fatalf(".dockerignore: %q: this test does not handle negations or escapes; extend it", line)
		}
		patterns = append(patterns, strings.Trim(line, "/"))
	}
	if len(patterns) == 0 {
		t.Fatal(".dockerignore has no pattern")
	}

	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	for _, p := range patterns {
		if excluded(p, ".git/HEAD") {
			t.Errorf(".dockerignore: %q excludes .git; the build could not stamp the VCS revision", p)
		}
		for _, f := range files {
			if excluded(p, f) {
				t.Errorf(".dockerignore: %q excludes the tracked file %s; the build would be stamped modified", p, f)
			}
		}
	}
}

// excluded reports whether the Docker ignore pattern p (no leading or
// trailing slash) excludes file: p, with "**" matching any number of
// directories, matches file or one of its parent directories.
func excluded(p, file string) bool {
	parts := strings.Split(file, "/")
	for i := 1; i <= len(parts); i++ {
		if match(strings.Split(p, "/"), parts[:i]) {
			return true
		}
	}
	return false
}

func match(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if match(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && match(pat[1:], name[1:])
}

// TestExcluded: the matcher follows Docker's rules for the pattern forms
// .dockerignore uses.
func TestExcluded(t *testing.T) {
	for _, c := range []struct {
		pattern, file string
		want          bool
	}{
		{"sharevat", "sharevat", true},
		{"sharevat", "cmd/sharevat/main.go", false}, // anchored at the root
		{"bin", "bin/sharevat", true},
		{"**/*.test", "vat.test", true},
		{"**/*.test", "a/b/vat.test", true},
		{"**/*.test", "a/test.go", false},
		{"interop/node_modules", "interop/node_modules/ws/index.js", true},
		{"interop/node_modules", "interop/client.mjs", false},
	} {
		if got := excluded(c.pattern, c.file); got != c.want {
			t.Errorf("excluded(%q, %q) = %v, want %v", c.pattern, c.file, got, c.want)
		}
	}
}

// TestDockerignoreCoversGitignore: what git ignores stays out of the
// build context too (node_modules, build output, binaries): for each
// pattern of every tracked .gitignore, a path it ignores — where it sits,
// and, for a pattern that is not anchored, deeper down — is excluded by
// a .dockerignore pattern.
func TestDockerignoreCoversGitignore(t *testing.T) {
	patterns := dockerPatterns(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", ".gitignore", "**/.gitignore").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) == 0 || files[0] == "" {
		t.Fatal("no .gitignore is tracked")
	}
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, probe := range gitignoreProbes(t, path.Dir(f), string(text)) {
			if !excludedByAny(patterns, probe) {
				t.Errorf("%s ignores %s, but .dockerignore does not exclude it from the build context", f, probe)
			}
		}
	}
}

// dockerPatterns returns .dockerignore's patterns, without their slashes
// at either end.
func dockerPatterns(t *testing.T) []string {
	text, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(text), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, strings.Trim(line, "/"))
		}
	}
	return patterns
}

// gitignoreProbes returns paths that the patterns of a .gitignore in dir
// ignore: each pattern with its wildcards filled in, where the file is,
// and below a subdirectory when the pattern is not anchored.
func gitignoreProbes(t *testing.T, dir, text string) []string {
	var probes []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, "!\\[") {
			t.Fatalf("%s/.gitignore: %q: this test does not handle negations, escapes or classes; extend it", dir, line)
		}
		name := strings.ReplaceAll(strings.Trim(line, "/"), "*", "x")
		probes = append(probes, path.Join(dir, name))
		if !strings.Contains(strings.TrimSuffix(line, "/"), "/") {
			probes = append(probes, path.Join(dir, "sub", "dir", name))
		}
	}
	return probes
}

func excludedByAny(patterns []string, file string) bool {
	for _, p := range patterns {
		if excluded(p, file) {
			return true
		}
	}
	return false
}

package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..")

// installPrefix is the PREFIX the tests install under (not the default,
// so that the test shows PREFIX is honoured).
const installPrefix = "/opt/sharevat"

var (
	installOnce sync.Once
	installDir  string // DESTDIR
	installErr  error
	installOut  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if installDir != "" {
		os.RemoveAll(installDir)
	}
	os.Exit(code)
}

// installed runs `make install DESTDIR=<temp> PREFIX=/opt/sharevat` once
// per test binary and returns the installed binary's path.
func installed(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("NOTICE: make is not on PATH: the install target check did not run (Debian: apt-get install make)")
	}
	installOnce.Do(func() {
		if installDir, installErr = os.MkdirTemp("", "sharevat-install-"); installErr != nil {
			return
		}
		cmd := exec.Command("make", "-C", root, "install", "DESTDIR="+installDir, "PREFIX="+installPrefix)
		installOut, installErr = cmd.CombinedOutput()
	})
	if installErr != nil {
		t.Fatalf("make install: %v\n%s", installErr, installOut)
	}
	return filepath.Join(installDir, installPrefix, "bin", "sharevat")
}

// TestMakeInstall: `make install DESTDIR=D PREFIX=P` leaves an executable
// D/P/bin/sharevat that runs, and `make help` lists the target.
func TestMakeInstall(t *testing.T) {
	bin := installed(t)
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("make install did not install %s: %v\n%s", bin, err, installOut)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("%s: mode %v, want an executable file", bin, fi.Mode())
	}
	out, err := exec.Command(bin, "help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s help: %v\n%s", bin, err, out)
	}
	if !regexp.MustCompile(`(?m)^\s+serve\s`).Match(out) {
		t.Errorf("%s help lists no serve command:\n%s", bin, out)
	}

	help, err := exec.Command("make", "-s", "-C", root, "help").CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, help)
	}
	if !regexp.MustCompile(`(?m)^\s+install\s+\S`).Match(help) {
		t.Errorf("make help does not list install:\n%s", help)
	}
}

// TestMakeInstallStampsVersion: the binary make install leaves names a
// version (not "(devel)") and the checkout's commit.
func TestMakeInstallStampsVersion(t *testing.T) {
	bin := installed(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("NOTICE: not a git checkout (%v): the version stamp check did not run", err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 2 || !regexp.MustCompile(`^sharevat v\d+\.\d+\.\d+\S*$`).MatchString(lines[0]) {
		t.Errorf("make install's binary prints %q, want sharevat vX.Y.Z…", out)
	}
	if want := "commit " + strings.TrimSpace(string(head)); len(lines) < 2 || lines[1] != want {
		t.Errorf("make install's binary prints %q, want the line %q", out, want)
	}
}

// settings returns every SHAREVAT_* name the installed binary documents:
// serve's settings (serve --help names each flag's variable) and the
// client's (sharevat help).
func settings(t *testing.T) map[string]bool {
	t.Helper()
	bin := installed(t)
	names := map[string]bool{}
	for _, args := range [][]string{{"help"}, {"serve", "--help"}} {
		// Help may exit non-zero (flag.ErrHelp); the text is what counts.
		out, _ := exec.Command(bin, args...).CombinedOutput()
		for _, n := range envName.FindAllString(string(out), -1) {
			names[n] = true
		}
	}
	if !names["SHAREVAT_LISTEN"] || !names["SHAREVAT_DATA"] {
		t.Fatalf("sharevat serve --help no longer names SHAREVAT_LISTEN and SHAREVAT_DATA; found %v", names)
	}
	return names
}

var envName = regexp.MustCompile(`\bSHAREVAT_[A-Z0-9_]*[A-Z0-9]\b`)

// checkSettings fails for each SHAREVAT_* name in text that the binary
// does not know.
func checkSettings(t *testing.T, file, text string) {
	t.Helper()
	known := settings(t)
	for _, n := range envName.FindAllString(text, -1) {
		if !known[n] {
			t.Errorf("%s uses %s, which sharevat does not read", file, n)
		}
	}
}

// TestDeployDocSettings: every SHAREVAT_* variable docs/deploy.md names
// is one sharevat reads.
func TestDeployDocSettings(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkSettings(t, "docs/deploy.md", string(text))
}

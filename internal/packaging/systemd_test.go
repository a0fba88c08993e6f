package packaging_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSystemdUnit: docs/sharevat.service starts `sharevat serve` from
// where `make install` puts it by default, sets only settings sharevat
// reads, and, where systemd-analyze is installed, verifies without a
// warning about the unit and keeps its hardening (an exposure score of at
// most 2.0 of 10 by `systemd-analyze security`).
func TestSystemdUnit(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "docs", "sharevat.service"))
	if err != nil {
		t.Fatal(err)
	}
	execStart := regexp.MustCompile(`(?m)^ExecStart=(\S+)( serve\s*)$`)
	m := execStart.FindSubmatch(text)
	if m == nil || string(m[1]) != "/usr/local/bin/sharevat" {
		t.Fatalf("docs/sharevat.service: want ExecStart=/usr/local/bin/sharevat serve (make install's default PREFIX), got %q", m)
	}
	checkSettings(t, "docs/sharevat.service", string(text))

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("NOTICE: systemd-analyze is not installed: the unit file check did not run (Debian: apt-get install systemd)")
	}
	// verify checks that ExecStart's binary exists: use the installed one.
	unit := filepath.Join(t.TempDir(), "sharevat.service")
	bin := installed(t)
	if err := os.WriteFile(unit, execStart.ReplaceAll(text, []byte("ExecStart="+bin+"$2")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", unit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.Contains(line, "sharevat.service") {
			t.Errorf("systemd-analyze verify: %s", line)
		} else if line != "" {
			t.Logf("systemd-analyze verify (about the host, not the unit): %s", line)
		}
	}
	if err != nil {
		t.Errorf("systemd-analyze verify: %v", err)
	}

	out, err := exec.Command(analyze, "security", "--offline=yes", unit).CombinedOutput()
	if err != nil {
		t.Logf("systemd-analyze security --offline=yes: %v (older systemd?); not checked\n%s", err, out)
		return
	}
	m = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
	}
	if score, _ := strconv.ParseFloat(string(m[1]), 64); score > 2.0 {
		t.Errorf("docs/sharevat.service exposure %.1f > 2.0: its hardening was weakened\n%s", score, out)
	}
}

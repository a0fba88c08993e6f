package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sharevat/sharevat/internal/proctest"
)

// TestHealthcheckCommand runs the Dockerfile's HEALTHCHECK command, with
// the installed binary and the URL of a real `sharevat serve`: it must
// succeed while the vat serves and fail once it has stopped. The image has
// no shell, curl or wget, so the command is a sharevat subcommand; until
// the binary has it, the test skips.
func TestHealthcheckCommand(t *testing.T) {
	bin := installed(t)
	help, _ := exec.Command(bin, "help").CombinedOutput()
	text, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := parseDockerfile(t, string(text))
	hc := stages[len(stages)-1].last(t, "HEALTHCHECK")
	_, argv, _ := strings.Cut(hc.args, " ")
	cmd := execForm(t, hc, strings.TrimSpace(argv))
	if len(cmd) < 2 || !regexp.MustCompile(`(?m)^\s+`+regexp.QuoteMeta(cmd[1])+`\s`).Match(help) {
		t.Skipf("the Dockerfile's HEALTHCHECK runs %q, but `sharevat help` lists no %q command yet", cmd, cmd[1:2])
	}

	srv, err := proctest.Start(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	health := strings.Replace(strings.TrimSuffix(srv.URL, "/rpc"), "ws://", "http://", 1) + "/healthz"
	args := make([]string, len(cmd)-1)
	for i, a := range cmd[1:] {
		if strings.Contains(a, "://") {
			a = health
		}
		args[i] = a
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Errorf("sharevat %s against a serving vat: %v\n%s", strings.Join(args, " "), err, out)
	}
	srv.Stop(t)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err == nil {
		t.Errorf("sharevat %s succeeded with the vat stopped:\n%s", strings.Join(args, " "), out)
	}
}

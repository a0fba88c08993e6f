// Package opencodeplugin_test runs the opencode plugin's Node suite
// (test/*.test.mjs: the item mapping, the hook, and the flush against a
// real vat: converging with the door's share, a refused creation token, a
// revoked share token, the vat SIGKILLed mid-flush) with node's test runner: TestNodeSuite builds the
// real binary, runs `sharevat serve` on a fresh data directory and points
// the suite at it. TestTypeCheck type-checks the plugin's JavaScript
// (checkJs, strict) with the pinned TypeScript compiler.
//
// The plugin depends on @sharevat/client ("^0.1.0"), which the npm
// workspace of clients/ links to clients/typescript (clients/node_modules/
// @sharevat/client): needNode compiles that package (tsc → dist/) once
// per test binary. Every test skips, with a NOTICE, when node or a
// node_modules is missing (run `npm ci` in clients/); CI installs them.
// See README.md.
package opencodeplugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// needNode returns node's path, or skips the test with a notice saying
// what is missing and how to get it.
func needNode(t *testing.T) string {
	t.Helper()
	node := nodetest.Need(t, ".", "clients", "the opencode plugin's suites")
	for _, dep := range []string{
		"node_modules/capnweb", "node_modules/ws", "node_modules/typescript",
		"../node_modules/@sharevat/client", // the workspace's link to clients/typescript
		"../typescript/node_modules/capnweb", "../typescript/node_modules/ws", "../typescript/node_modules/typescript",
	} {
		if _, err := os.Stat(filepath.Join(dep, "package.json")); err != nil {
			// npm ci in one package of the workspace removes the other's
			// node_modules: the whole workspace is installed at once.
			nodetest.Missing(t, "clients/opencode-plugin/"+dep+" is missing: the opencode plugin's suites did not run; run `(cd clients && npm ci)`")
		}
	}
	built.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		built.out, built.err = exec.CommandContext(ctx, node, filepath.Join(clientDir, "node_modules", "typescript", "bin", "tsc"), "-p", clientDir).CombinedOutput()
	})
	require.NoError(t, built.err, "building @sharevat/client (tsc -p clients/typescript):\n%s", built.out)
	return node
}

// clientDir is the @sharevat/client package the plugin depends on.
var clientDir = filepath.Join("..", "typescript")

// built is the one compile of clientDir per test binary.
var built struct {
	sync.Once
	out []byte
	err error
}

// mintCreationToken mints a creation token of the opencode door of the
// vat at url (data: its data directory, holding admin.token) with the
// CLI, as an operator does, and returns the file in dir it is written to.
func mintCreationToken(bin, url, data, dir string) (string, error) {
	out, err := exec.Command(bin, "opencode-token", "mint", "--server", url,
		"--token-file", filepath.Join(data, "admin.token"), "--name", "plugin", "--json").Output()
	if err != nil {
		return "", fmt.Errorf("opencode-token mint: %v: %s", err, out)
	}
	var m struct{ Token string }
	if err := json.Unmarshal(out, &m); err != nil || m.Token == "" {
		return "", fmt.Errorf("opencode-token mint: no token in %q (%v)", out, err)
	}
	file, err := os.CreateTemp(dir, "creation-*.token")
	if err != nil {
		return "", err
	}
	defer file.Close()
	_, err = file.WriteString(m.Token + "\n")
	return file.Name(), err
}

// TestTypeCheck runs `tsc --noEmit -p .` over src/ and bin/.
func TestTypeCheck(t *testing.T) {
	node := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", ".").CombinedOutput()
	require.NoError(t, err, "tsc --noEmit -p clients/opencode-plugin:\n%s", out)
}

// TestNodeSuite runs test/*.test.mjs against a real server.
func TestNodeSuite(t *testing.T) {
	node := needNode(t)
	files, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	vat, creation := sharedVat(t)
	base := httpBase(vat.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-timeout=120000"}, files...)...)
	cmd.Env = append(os.Environ(),
		"SHAREVAT_TEST_URL="+base,
		"SHAREVAT_CREATION_TOKEN_FILE="+creation,
		"SHAREVAT_BIN="+server.Binary(t), // test/vatkill.test.mjs starts and SIGKILLs its own vat
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed (%v):\n%s\nserver log:\n%s", err, out, vat.Log())
	}
	pass, fail := count(out, "pass"), count(out, "fail")
	t.Logf("Node suite: %s passed, %s failed (%d files)", pass, fail, len(files))
	require.Equal(t, "0", fail, "%s", out)
	require.NotEqual(t, "0", pass, "%s", out)
}

// count returns the number node's TAP summary gives for name ("# pass 12").
func count(tap []byte, name string) string {
	m := regexp.MustCompile(`(?m)^# ` + name + ` (\d+)$`).FindSubmatch(tap)
	if m == nil {
		return "?"
	}
	return string(m[1])
}

// server is the sharevat binary the tests share.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat")}

// TestMain gives each opencode command more time than the harness's
// default (these tests run opencode with the plugin on a machine that may
// be shared and slow), and at the end stops the shared vat and removes
// the shared installation and server binary.
func TestMain(m *testing.M) {
	opencodetest.RunTimeout = 6 * time.Minute
	code := m.Run()
	endShared()
	server.Cleanup()
	os.Exit(code)
}

// Package npmpublish_test proves the npm packages of clients/ by
// publishing them, as CI does: Verdaccio (pinned here, a registry on
// loopback with a storage directory of its own) receives `npm publish`
// of @sharevat/client and @sharevat/opencode-plugin from the repository,
// and then, from fresh directories and by name only:
//
//   - TestPublishedPackages: each tarball ships LICENSE, README and its
//     .d.ts, the client no TypeScript source, and the plugin depends on
//     @sharevat/client by the range ^0.1.0;
//   - TestClientReadmeProgram: `npm install @sharevat/client` (the
//     install line of clients/typescript/README.md) and the README's
//     program run against a real `sharevat serve`; `require()` of both
//     entry points works on this Node (the README's ESM-only stance);
//   - TestOpencodeLoadsPluginByName: the real opencode (interop/opencode,
//     pinned) with `"plugin": ["@sharevat/opencode-plugin"]` installs the
//     plugin from the registry itself (NPM_CONFIG_REGISTRY), shares two
//     runs into a vat, `sharevat-opencode-flush` from a global install
//     (`npm install -g`) flushes, and the vat holds every item of
//     `opencode export` at its final version (the plugin's
//     e2e/compare.mjs).
//
// Every test skips with a NOTICE when node or npm is missing (or this
// directory's node_modules: run `npm ci` here), and fails instead under
// SHAREVAT_REQUIRE_SUITES=1, as CI sets it. The registry proxies
// everything but @sharevat/* to npmjs.org (opencode's own packages,
// capnweb, ws), so the tests need the network CI's `npm ci` needs.
package npmpublish_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// clients is the directory of the npm workspace holding both packages.
var clients = filepath.Join("..", "..", "clients")

// server is the sharevat binary the tests share.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat")}

// shared is the registry the package's tests share, started and
// published to by the first test that needs it, ended by TestMain.
var shared struct {
	once sync.Once
	dir  string
	reg  *registry
	err  error
}

// published returns the registry holding both packages, and node and
// npm's paths; the first call starts it and publishes them.
func published(t *testing.T) (reg *registry, node, npm string) {
	t.Helper()
	node = nodetest.Need(t, ".", "interop/npmpublish", "the npm publishing test", "verdaccio")
	for _, dep := range []string{"node_modules/@sharevat/client", "typescript/node_modules/typescript", "opencode-plugin/node_modules/capnweb"} {
		if _, err := os.Stat(filepath.Join(clients, dep, "package.json")); err != nil {
			nodetest.Missing(t, "clients/"+dep+" is missing: the npm publishing test did not run; run `(cd clients && npm ci)`")
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		nodetest.Missing(t, "npm is not on PATH: the npm publishing test did not run; install Node.js >= 20 with npm")
	}
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "sharevat-npmpublish-"); shared.err != nil {
			return
		}
		if shared.reg, shared.err = startRegistry(node, shared.dir); shared.err != nil {
			return
		}
		for _, pkg := range []string{"typescript", "opencode-plugin"} {
			if shared.err = publish(npm, shared.reg, filepath.Join(clients, pkg)); shared.err != nil {
				return
			}
		}
	})
	require.NoError(t, shared.err, "the registry and the publishing")
	return shared.reg, node, npm
}

// publish runs `npm publish` in dir against reg.
func publish(npm string, reg *registry, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "publish", "--registry", reg.URL)
	cmd.Dir, cmd.Env = dir, reg.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return &cmdError{cmd: "npm publish in " + dir, err: err, out: out}
	}
	return nil
}

// cmdError is a command that failed, with what it printed.
type cmdError struct {
	cmd string
	err error
	out []byte
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + string(e.out) }

// runIn runs name args in dir with env (within 3 minutes) and returns
// its output, failing t when it fails.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s in %s:\n%s", name, strings.Join(args, " "), dir, out)
	return string(out)
}

// manifest is what the registry says of pkg's latest version.
type manifest struct {
	License      string
	Dependencies map[string]string
	Bin          map[string]string
	Exports      map[string]json.RawMessage
}

// view runs `npm view pkg --json` against reg.
func view(t *testing.T, reg *registry, npm, pkg string) manifest {
	t.Helper()
	out := runIn(t, t.TempDir(), reg.Env(), npm, "view", pkg, "--json", "--registry", reg.URL)
	var m manifest
	require.NoError(t, json.Unmarshal([]byte(out), &m), "npm view %s: %s", pkg, out)
	return m
}

// tarballFiles downloads pkg's tarball from reg and lists its files.
func tarballFiles(t *testing.T, reg *registry, npm, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	name := strings.TrimSpace(runIn(t, dir, reg.Env(), npm, "pack", pkg, "--silent", "--registry", reg.URL))
	return runIn(t, dir, nil, "tar", "-tzf", filepath.Join(dir, name))
}

// TestPublishedPackages: what the registry serves is what a user
// should get.
func TestPublishedPackages(t *testing.T) {
	reg, _, npm := published(t)
	client := tarballFiles(t, reg, npm, "@sharevat/client")
	for _, f := range []string{"LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/outbox/index.d.ts"} {
		require.Contains(t, client, "package/"+f+"\n", "@sharevat/client's tarball")
	}
	require.NotContains(t, client, "package/src/", "@sharevat/client ships the compiled package only")
	plugin := tarballFiles(t, reg, npm, "@sharevat/opencode-plugin")
	for _, f := range []string{"LICENSE", "README.md", "package.json", "src/index.js", "bin/flush.js", "dist/index.d.ts"} {
		require.Contains(t, plugin, "package/"+f+"\n", "@sharevat/opencode-plugin's tarball")
	}
	m := view(t, reg, npm, "@sharevat/opencode-plugin")
	require.Equal(t, "^0.1.0", m.Dependencies["@sharevat/client"], "the plugin depends on the client by version range")
	require.Equal(t, "MIT", m.License)
	require.Contains(t, m.Bin, "sharevat-opencode-flush")
	c := view(t, reg, npm, "@sharevat/client")
	require.Equal(t, "MIT", c.License)
	require.Contains(t, c.Exports, "./outbox")
}

// TestMain stops the registry and removes its directory and the built
// binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.reg != nil {
		shared.reg.stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	server.Cleanup()
	os.Exit(code)
}

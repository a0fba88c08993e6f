// Package interop_test proves that Cap'n Proto RPC peers that are not Go
// can use sharevat (docs/design.md §7). Each test runs the real server binary,
// lets a foreign client redeem an owner token, append and read, and checks
// with the Go client that the ops landed:
//
//   - TestNodeClient: client.mjs, on capnp-es over the ws package. Skips
//     when node or interop/node_modules is missing (run `npm ci` here).
//   - TestCxxClient: cxx/client.c++, on the reference C++ implementation
//     (kj-http WebSocket + capnp::WebSocketMessageStream). Skips when
//     capnp, a C++ compiler or libcapnp-dev (pkg-config capnp-websocket)
//     is missing.
//
// See README.md.
package interop_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
)

// TestGeneratedCodeIsCurrent fails when schema/sharevat.capnp changed after
// gen/sharevat.js was generated from it (run `npm run generate` in interop/
// and commit). It needs neither node nor the compiler.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	sums, err := os.ReadFile(filepath.Join("gen", "capnp.sum"))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		want, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, "gen/capnp.sum: malformed line %q", line)
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		require.NoError(t, err)
		got := sha256.Sum256(src)
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("%s changed since interop/gen/sharevat.js was generated: run 'npm run generate' in interop/ (needs capnp and node_modules) and commit", name)
		}
	}
}

func TestNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("NOTICE: interop: node is not on PATH; install Node.js >= 20 and run `npm ci` in interop/ to run this test")
	}
	for _, dep := range []string{"capnp-es", "ws"} {
		if _, err := os.Stat(filepath.Join("node_modules", dep, "package.json")); err != nil {
			t.Skipf("NOTICE: interop: interop/node_modules/%s is missing; run `(cd interop && npm ci)` to run this test", dep)
		}
	}
	const prefix = "node"
	runForeignClient(t, prefix, func(ctx context.Context, srv *proctest.Server, token string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, node, "client.mjs", "--timeout-ms", "30000")
		cmd.Env = append(os.Environ(), "SHAREVAT_URL="+srv.URL, "SHAREVAT_TOKEN="+token, "INTEROP_PREFIX="+prefix)
		return cmd
	})
}

func TestCxxClient(t *testing.T) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	for _, tool := range []string{"capnp", "pkg-config", cxx} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("NOTICE: interop: %s is not on PATH; the C++ check needs capnp, pkg-config, a C++ compiler and libcapnp-dev (Debian: apt-get install capnproto libcapnp-dev g++)", tool)
		}
	}
	pkgs := []string{"capnp-websocket", "capnp-rpc", "capnp", "kj-http", "kj-async", "kj"}
	if err := exec.Command("pkg-config", append([]string{"--exists"}, pkgs...)...).Run(); err != nil {
		t.Skip("NOTICE: interop: the Cap'n Proto C++ libraries are missing (pkg-config capnp-websocket); Debian: apt-get install libcapnp-dev")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Generate the C++ for the schema with the installed compiler (whose
	// runtime library must match it), as schema/README.md tells a non-Go
	// implementer to: an import directory holding only go-capnp's go.capnp,
	// so /capnp/c++.capnp comes from the compiler's own include directory.
	// Then build the client.
	dir := t.TempDir()
	imports := writeGoCapnp(ctx, t)
	gen := exec.CommandContext(ctx, "capnp", "compile", "-I"+imports,
		"--src-prefix=schema", "-oc++:"+dir, "schema/sharevat.capnp")
	gen.Dir = ".."
	out, err := gen.CombinedOutput()
	require.NoError(t, err, "capnp compile -oc++: %s", out)
	flags, err := exec.CommandContext(ctx, "pkg-config", append([]string{"--cflags", "--libs"}, pkgs...)...).Output()
	require.NoError(t, err)
	src, err := filepath.Abs(filepath.Join("cxx", "client.c++"))
	require.NoError(t, err)
	bin := filepath.Join(dir, "client")
	args := append([]string{"-std=c++17", "-O1", "-o", bin, "-I" + dir, src, filepath.Join(dir, "sharevat.capnp.c++")},
		strings.Fields(string(flags))...)
	out, err = exec.CommandContext(ctx, cxx, args...).CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", cxx, strings.Join(args, " "), out)

	const prefix = "cxx"
	runForeignClient(t, prefix, func(ctx context.Context, srv *proctest.Server, token string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/rpc"), "ws://"), prefix)
		cmd.Env = append(os.Environ(), "SHAREVAT_TOKEN="+token)
		return cmd
	})
}

// writeGoCapnp writes go-capnp's std/go.capnp, the one file beyond the
// compiler's own that sharevat.capnp imports, alone in a new directory,
// and returns the directory.
func writeGoCapnp(ctx context.Context, t *testing.T) string {
	t.Helper()
	goCapnp, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "capnproto.org/go/capnp/v3").Output()
	require.NoError(t, err, "go list capnproto.org/go/capnp/v3")
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goCapnp)), "std", "go.capnp"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.capnp"), src, 0o644))
	return dir
}

// clientResult is the JSON line a foreign client prints on success.
type clientResult struct {
	OK      bool     `json:"ok"`
	Share   string   `json:"share"`
	Epoch   uint64   `json:"epoch"`
	OpIDs   []string `json:"opIds"`
	Cursors []uint64 `json:"cursors"`
	Head    uint64   `json:"head"`
}

// runForeignClient starts a server, creates a fresh share with the Go
// client, runs the command newCmd makes with the share's owner token, and
// checks that it succeeded and that the Go client sees the ops it appended
// (the same four ops in both clients, their ids prefixed with prefix).
func runForeignClient(t *testing.T, prefix string, newCmd func(context.Context, *proctest.Server, string) *exec.Cmd) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	srv := proctest.StartServe(t, server.Binary(t))
	adminToken, err := os.ReadFile(filepath.Join(srv.Data, "admin.token"))
	require.NoError(t, err)

	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, strings.TrimSpace(string(adminToken)))
	require.NoError(t, err)
	title := "interop " + prefix
	share, owner, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	admin.Release()
	require.NoError(t, err)
	shareID := share.Info.ID
	share.Release()

	cmd := newCmd(ctx, srv, owner.Token)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("%s client stderr:\n%s", prefix, stderr.String())
	require.NoError(t, err, "%s client failed; server log:\n%s", prefix, srv.Log)
	var res clientResult
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &res), "%s client stdout: %q", prefix, stdout.String())
	wantIDs := []string{prefix + "-s1", prefix + "-m1", prefix + "-e1", prefix + "-m1-del"}
	require.Equal(t, clientResult{
		OK: true, Share: string(shareID), Epoch: 1,
		OpIDs: wantIDs, Cursors: []uint64{1, 2, 3, 4}, Head: 4,
	}, res)

	// The Go client sees exactly those ops: the foreign client's retry of
	// the same batch added nothing, nor did its stale-epoch op.
	sh, err := conn.Redeem(ctx, owner.Token)
	require.NoError(t, err)
	defer sh.Release()
	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	defer rd.Release()
	entries, head, err := rd.Read(ctx, 0, 100)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(4), head)
	require.Len(t, entries, 4)
	want := []struct {
		kind, key, body string
		del             bool
	}{
		{"session", prefix + "-ses", `{"title":"interop"}`, false},
		{"message", prefix + "-msg1", `{"role":"user","text":"héllo ✓"}`, false},
		{"event", "", `{"type":"session.idle"}`, false},
		{"message", prefix + "-msg1", "", true},
	}
	for i, e := range entries {
		require.Equal(t, sharevat.Cursor(i+1), e.Cursor, "entry %d", i)
		require.Equal(t, wantIDs[i], e.OpID, "entry %d", i)
		require.Equal(t, prefix+"-batch-1", e.BatchID, "entry %d", i)
		require.Equal(t, uint32(i), e.Seq, "entry %d", i)
		require.Equal(t, want[i].kind, e.Kind, "entry %d", i)
		require.Equal(t, want[i].key, e.Key, "entry %d", i)
		require.Equal(t, want[i].del, e.Delete, "entry %d", i)
		if want[i].body != "" {
			require.JSONEq(t, want[i].body, string(e.Body), "entry %d", i)
		} else {
			require.Empty(t, e.Body, "entry %d", i)
		}
	}

	// And the state they materialize: the session, not the deleted message.
	ents, cur, err := rd.Snapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(4), cur)
	require.Len(t, ents, 1)
	require.Equal(t, "session", ents[0].Kind)
	require.Equal(t, prefix+"-ses", ents[0].Key)
}

// server is the sharevat binary the tests share, built with the race
// detector so the server is checked for races under these clients.
var server = proctest.Once{PkgDir: filepath.Join("..", "cmd", "sharevat"), Race: true}

// TestMain removes the shared server binary.
func TestMain(m *testing.M) {
	code := m.Run()
	server.Cleanup()
	os.Exit(code)
}

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// xiEnv is the environment of one test's commands: the server, a state
// directory, and the admin token file.
type xiEnv struct {
	t     *testing.T
	srv   *server
	state string
}

func newXIEnv(t *testing.T, on storeKind) *xiEnv {
	return &xiEnv{t: t, srv: on.startServer(t, t.TempDir()), state: t.TempDir()}
}

// run runs the CLI with the server and the state directory set.
func (x *xiEnv) run(token string, args ...string) (string, string, int) {
	x.t.Helper()
	env := []string{"SHAREVAT_URL=" + x.srv.URL, "SHAREVAT_STATE=" + x.state}
	if token != "" {
		env = append(env, "SHAREVAT_TOKEN="+token)
	}
	return cli(x.t, "", env, args...)
}

// admin is the --token-file argument pair of the admin token.
func (x *xiEnv) admin() []string {
	return []string{"--token-file", filepath.Join(x.srv.Data, "admin.token")}
}

// importFile imports file with the admin token and returns the owner
// token it printed.
func (x *xiEnv) importFile(file string, extra ...string) string {
	x.t.Helper()
	out, stderr, code := x.run("", append(append([]string{"import", "--file", file}, x.admin()...), extra...)...)
	require.Equal(x.t, 0, code, stderr)
	return firstLine(out)
}

// appendBatches appends ops to token's share in batches of per.
func appendBatches(t *testing.T, url, token string, ops []sharevat.Op, per int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, app := mustAppender(ctx, t, url, token)
	for i := 0; i < len(ops); i += per {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("xi-%d", i), Epoch: 1, Ops: ops[i:min(i+per, len(ops))]}
		ack, err := app.Append(ctx, b)
		require.NoError(t, err)
		require.Zero(t, ack.Rejected, "%+v", ack.Results)
	}
}

// variedOps are n ops of every kind, with bodies a JSON re-encoder would
// change (spaces, line breaks, escapes, HTML characters, non-ASCII),
// deletes with and without a body, and a null body.
func variedOps(n int) []sharevat.Op {
	bodies := []string{`{"a": 1, "b" : [1, 2]}`, "{\n  \"pretty\": true\n}", `"<&> caf\u00e9 café"`, `null`,
		`{"text":"line\nbreak","tab":"\t"}`, `[ ]`, `12.50`, "{\"x\":\"\u2028\"}"}
	kinds := []string{sharevat.KindSession, sharevat.KindMessage, sharevat.KindPart, sharevat.KindSessionDiff, sharevat.KindModel}
	ops := make([]sharevat.Op, n)
	for i := range ops {
		op := sharevat.Op{OpID: fmt.Sprintf("op-%05d", i), Kind: kinds[i%len(kinds)], Key: fmt.Sprintf("k%d", i%37),
			Body: []byte(bodies[i%len(bodies)])}
		switch {
		case i%11 == 3:
			op.Kind, op.Key = sharevat.KindEvent, ""
			op.Body = []byte(`{"type":"tick"}`)
		case i%13 == 5:
			op.Delete, op.Body = true, nil
		case i%17 == 7:
			op.Delete = true
		}
		ops[i] = op
	}
	return ops
}

// sameLog checks that got holds want's ops, in order, with the same
// content.
func sameLog(t *testing.T, want, got []sharevat.Entry) {
	t.Helper()
	require.Len(t, got, len(want), "the imported log holds every op once")
	for i := range want {
		w, g := want[i], got[i]
		require.Equal(t, w.Cursor, g.Cursor, "cursor of op %d", i)
		require.Equal(t, w.OpID, g.OpID, "op id at cursor %d", w.Cursor)
		require.Equal(t, w.Kind, g.Kind, "kind at cursor %d", w.Cursor)
		require.Equal(t, w.Key, g.Key, "key at cursor %d", w.Cursor)
		require.Equal(t, string(w.Body), string(g.Body), "body at cursor %d, byte for byte", w.Cursor)
		require.Equal(t, w.Delete, g.Delete, "delete flag at cursor %d", w.Cursor)
	}
}

// snapshotOf returns token's share's state as kind/key → body.
func snapshotOf(t *testing.T, url, token string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, done := redeemOn(ctx, t, url, token)
	defer done()
	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	ents, _, err := rd.Snapshot(ctx)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range ents {
		out[e.Kind+"/"+e.Key] = string(e.Body)
	}
	return out
}

// TestExportImportRoundTrip: a share of 2,500 varied ops (three read
// pages) exported with `export --file` and imported with `import` gives
// a share with the same ops — op ids, kinds, keys, bodies byte for byte,
// delete flags, order — and the same snapshot and metadata; the header
// says what the format documents.
func TestExportImportRoundTrip(t *testing.T) { onEachStore(t, testExportImportRoundTrip) }

func testExportImportRoundTrip(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	out, stderr, code := x.run("", append([]string{"create", "--title", "round trip", "--project", "p1", "--directory", "/src/app", "--version", "1.2"}, x.admin()...)...)
	require.Equal(t, 0, code, stderr)
	owner := firstLine(out)
	ops := variedOps(2500)
	appendBatches(t, x.srv.URL, owner, ops, 400)

	file := filepath.Join(t.TempDir(), "share.jsonl")
	_, stderr, code = x.run(owner, "export", "--file", file, "--progress")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported", "--progress draws the bar")
	_, err := os.Stat(file + ".tmp")
	assert.True(t, os.IsNotExist(err), "no temporary file is left")
	h := readHeader(t, file)
	assert.Equal(t, "sharevat-export", h["format"])
	assert.Equal(t, float64(1), h["version"])
	assert.Equal(t, float64(2500), h["head"])
	assert.Equal(t, float64(2500), h["ops"])
	assert.Regexp(t, `^[0-9a-f]{32}$`, h["export_id"])
	share := h["share"].(map[string]any)
	assert.Equal(t, "round trip", share["title"])
	assert.Equal(t, "/src/app", share["directory"])

	imported := x.importFile(file)
	require.NotEqual(t, owner, imported)
	want, got := readAll(t, x.srv.URL, owner), readAll(t, x.srv.URL, imported)
	sameLog(t, want, got)
	assert.Equal(t, snapshotOf(t, x.srv.URL, owner), snapshotOf(t, x.srv.URL, imported), "the snapshots are equal")
	info := shareInfo(t, x.srv.URL, imported)
	assert.Equal(t, []string{"round trip", "p1", "/src/app", "1.2"}, []string{info.Meta.Title, info.Meta.ProjectID, info.Meta.Directory, info.Meta.Version})

	// The import's own export has the same ops lines but for batch ids,
	// seqs and times.
	again := filepath.Join(t.TempDir(), "again.jsonl")
	_, stderr, code = x.run(imported, "export", "--file", again)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, opContent(t, file), opContent(t, again))
}

// readHeader decodes the first line of an export file.
func readHeader(t *testing.T, file string) map[string]any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	require.NoError(t, err)
	var h map[string]any
	require.NoError(t, json.Unmarshal(line, &h))
	return h
}

// opContent returns the op lines of an export without the fields an
// import does not keep (batch id, seq, time).
func opContent(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	out := make([]string, len(lines))
	for i, l := range lines {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		delete(m, "batch_id")
		delete(m, "seq")
		delete(m, "at")
		out[i] = fmt.Sprint(m)
	}
	return out
}

// shareInfo returns token's share's info.
func shareInfo(t *testing.T, url, token string) sharevat.Share {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, done := redeemOn(ctx, t, url, token)
	defer done()
	return sh.Info
}

// exportOf creates a share of n varied ops and exports it to a file.
func (x *xiEnv) exportOf(n int) (owner, file string) {
	x.t.Helper()
	owner = createShare(x.t, x.srv)
	appendBatches(x.t, x.srv.URL, owner, variedOps(n), 500)
	file = filepath.Join(x.t.TempDir(), "share.jsonl")
	_, stderr, code := x.run(owner, "export", "--file", file)
	require.Equal(x.t, 0, code, stderr)
	return owner, file
}

// importState reads the one import state file of the state directory.
func (x *xiEnv) importState() map[string]any {
	x.t.Helper()
	paths, err := filepath.Glob(filepath.Join(x.state, "imports", "*.json"))
	require.NoError(x.t, err)
	if len(paths) != 1 {
		return nil
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		return nil
	}
	var st map[string]any
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return st
}

// TestImportResumesAfterKill: an import SIGKILLed once part of its ops
// are acknowledged is completed by running the same command again: the
// re-run finds the share the first run created, gets a new owner token
// for it (the first run's dies), and the share ends up with every op of
// the export exactly once, in order. No second share is created.
func TestImportResumesAfterKill(t *testing.T) { onEachStore(t, testImportResumesAfterKill) }

func testImportResumesAfterKill(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	owner, file := x.exportOf(killOps)
	firstToken := x.killImportMidway(file, killOps)

	out, stderr, code := x.run("", append([]string{"import", "--file", file}, x.admin()...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "resuming the import into share")
	token := firstLine(out)
	assert.NotEqual(t, firstToken, token, "the re-run mints a new owner token")
	sameLog(t, readAll(t, x.srv.URL, owner), readAll(t, x.srv.URL, token))
	_, _, code = x.run(firstToken, "inspect")
	assert.Equal(t, 3, code, "the first run's owner token no longer works")
	shares, _, code := x.run("", append([]string{"list", "--json"}, x.admin()...)...)
	require.Equal(t, 0, code)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(shares), &list))
	assert.Len(t, list, 2, "the source and the one imported share")
	st := x.importState()
	assert.Equal(t, true, st["complete"])
	assert.Equal(t, float64(killOps), st["done"])
}

// The import the tests SIGKILL midway stores and acknowledges its ops in
// chunks of killChunk (SHAREVAT_TEST_IMPORT_CHUNK; 2,000 for users) and
// the export holds killOps, so the kill lands after the first chunk with
// two to go, as with 6,000 ops in chunks of 2,000.
const (
	killChunk = 200
	killOps   = 3 * killChunk
)

// killImportMidway runs an import of file (total ops) and SIGKILLs it
// once some, not all, of its ops are acknowledged; it returns the owner
// token the import printed.
func (x *xiEnv) killImportMidway(file string, total int) string {
	t := x.t
	t.Helper()
	cmd := exec.Command(binary, append([]string{"import", "--file", file, "--batch", "50", "--server", x.srv.URL, "--state", x.state}, x.admin()...)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", fmt.Sprintf("SHAREVAT_TEST_IMPORT_CHUNK=%d", killChunk))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	first, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the import prints the owner token once the share exists")
	done := waitForImportProgress(t, x, total)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	t.Logf("killed the import with %v of %d ops acknowledged", done, total)
	return strings.TrimSpace(first)
}

// waitForImportProgress waits until the running import has some, not
// all, of its ops acknowledged, and returns how many. It polls: the
// import is another process, and its state file is all it shows.
func waitForImportProgress(t *testing.T, x *xiEnv, total int) any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if st := x.importState(); st != nil {
			if d, _ := st["done"].(float64); d > 0 {
				require.Less(t, d, float64(total), "the import ended before it could be killed")
				return d
			}
		}
		time.Sleep(5 * time.Millisecond) // polling the import process's state file: nothing signals a chunk
	}
	t.Fatal("the import acknowledged nothing within 60s")
	return nil
}

// TestImportIntoResumesWithTheFirstToken: an interrupted import is
// completed with --into-file and the owner token the first run printed,
// which stays valid; a token of another share is refused.
func TestImportIntoResumesWithTheFirstToken(t *testing.T) {
	onEachStore(t, testImportIntoResumesWithTheFirstToken)
}

func testImportIntoResumesWithTheFirstToken(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	owner, file := x.exportOf(killOps)
	first := x.killImportMidway(file, killOps)
	tokFile := filepath.Join(t.TempDir(), "owner.token")
	require.NoError(t, os.WriteFile(tokFile, []byte(first+"\n"), 0o600))

	other := createShare(t, x.srv)
	_, stderr, code := x.run("", "import", "--file", file, "--into", other)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is being imported into share")

	out, stderr, code := x.run("", "import", "--file", file, "--into-file", tokFile)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, first, firstLine(out), "--into prints the token it appended with")
	sameLog(t, readAll(t, x.srv.URL, owner), readAll(t, x.srv.URL, first))
}

// TestImportRefusesDamagedExports: an export cut short, with a cursor
// gap, of a newer format version, or neither format is refused (exit 2)
// before any share is created.
func TestImportRefusesDamagedExports(t *testing.T) { onEachStore(t, testImportRefusesDamagedExports) }

func testImportRefusesDamagedExports(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	_, file := x.exportOf(10)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	dir := t.TempDir()
	cases := map[string]struct{ content, want string }{
		"cut short":   {strings.Join(lines[:8], ""), "cut short"},
		"cursor gap":  {strings.Join(append(lines[:4:4], lines[5:]...), ""), "does not follow"},
		"version 2":   {strings.Replace(string(b), `"version":1`, `"version":2`, 1), "format version 2"},
		"not JSON":    {"hello\n", "neither a sharevat export"},
		"bad op line": {strings.Join(lines[:3], "") + "{\"cursor\":3,\n" + strings.Join(lines[4:], ""), "line 4"},
	}
	for name, c := range cases {
		f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		require.NoError(t, os.WriteFile(f, []byte(c.content), 0o600))
		_, stderr, code := x.run("", append([]string{"import", "--file", f}, x.admin()...)...)
		assert.Equal(t, 2, code, "%s: %s", name, stderr)
		assert.Contains(t, stderr, c.want, name)
	}
	out, _, _ := x.run("", append([]string{"list", "--json"}, x.admin()...)...)
	var list []any
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Len(t, list, 1, "no share was created for a refused export")
}

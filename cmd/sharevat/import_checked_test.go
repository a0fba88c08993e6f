package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIn runs the CLI like run, with stdin as its standard input.
func (x *xiEnv) runIn(stdin string, args ...string) (string, string, int) {
	x.t.Helper()
	return cli(x.t, stdin, []string{"SHAREVAT_URL=" + x.srv.URL, "SHAREVAT_STATE=" + x.state}, args...)
}

// shareCount is the number of shares on x's server.
func (x *xiEnv) shareCount() int {
	x.t.Helper()
	out, stderr, code := x.run("", append([]string{"list", "--json"}, x.admin()...)...)
	require.Equal(x.t, 0, code, stderr)
	var list []any
	require.NoError(x.t, json.Unmarshal([]byte(out), &list))
	return len(list)
}

// TestImportDamagedInputCreatesNothing: a damaged input — a sharevat
// export cut short, with a cursor gap or with one op id used for two
// different ops, an opencode export cut short — is refused (exit 2)
// before any share is created, from stdin as from a file, and the
// message never advises running the same command again (which could
// never succeed). A valid export on stdin imports whole. Before: from
// stdin each created an empty share, then failed with "run the same
// command again"; the reused op id did so from a file too.
func TestImportDamagedInputCreatesNothing(t *testing.T) {
	x := newXIEnv(t, onBolt)
	owner, file := x.exportOf(10)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	reused := append([]string(nil), lines...)
	reused[5] = strings.Replace(reused[5], `"op_id":"op-00004"`, `"op_id":"op-00002"`, 1)
	require.NotEqual(t, lines[5], reused[5])
	oc, err := os.ReadFile(opencodeFixture)
	require.NoError(t, err)
	cases := map[string]struct{ content, want string }{
		"cut short":       {strings.Join(lines[:8], ""), "cut short"},
		"cursor gap":      {strings.Join(append(lines[:4:4], lines[5:]...), ""), "does not follow"},
		"reused op id":    {strings.Join(reused, ""), `line 6: op id "op-00002" was used on line 4 for another op`},
		"opencode cut":    {string(oc[:len(oc)*2/3]), "cut short"},
		"opencode no id":  {strings.Replace(string(oc), `"id": "prt_c560f3e4b003`, `"idx": "prt_c560f3e4b003`, 1), "part 3 is not a part with an id"},
		"opencode not ob": {`["info"]`, "neither a sharevat export"},
	}
	dir := t.TempDir()
	for name, c := range cases {
		out, stderr, code := x.runIn(c.content, append([]string{"import"}, x.admin()...)...)
		assert.Equal(t, 2, code, "%s from stdin: %s", name, stderr)
		assert.Contains(t, stderr, c.want, "%s from stdin", name)
		assert.NotContains(t, stderr, "run the same command again", name)
		assert.Empty(t, out, "%s: no token is printed", name)

		f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		require.NoError(t, os.WriteFile(f, []byte(c.content), 0o600))
		_, stderr, code = x.run("", append([]string{"import", "--file", f}, x.admin()...)...)
		assert.Equal(t, 2, code, "%s from a file: %s", name, stderr)
		assert.Contains(t, stderr, c.want, "%s from a file", name)
	}
	assert.Equal(t, 1, x.shareCount(), "no share was created for a refused input")

	out, stderr, code := x.runIn(string(b), append([]string{"import"}, x.admin()...)...)
	require.Equal(t, 0, code, stderr)
	sameLog(t, readAll(t, x.srv.URL, owner), readAll(t, x.srv.URL, firstLine(out)))
	spools, err := filepath.Glob(filepath.Join(x.state, "imports", "*.spool"))
	require.NoError(t, err)
	assert.Empty(t, spools, "the spool file of stdin is gone")
}

// plantedKey is a made-up AWS access key id the privacy guard redacts.
const plantedKey = "AKIAFAKE234567ABCDEF"

// plantedExport writes a sharevat export of three ops, one holding
// plantedKey, whose header carries settings.
func plantedExport(t *testing.T, exportID, settings string) string {
	t.Helper()
	header := `{"format":"sharevat-export","version":1,"export_id":"` + exportID + `","exported_at":"2026-11-24T10:00:00Z",` +
		`"share":{"id":"src","title":"planted","project_id":"","directory":"","version":"","status":"idle"},"head":3,"ops":3,` +
		`"settings":` + settings + "}\n"
	ops := `{"cursor":1,"op_id":"s1","batch_id":"b","seq":0,"kind":"session","key":"ses_1","delete":false,"at":"2026-11-24T10:00:00Z","body":{"title":"t"}}
{"cursor":2,"op_id":"p1","batch_id":"b","seq":1,"kind":"part","key":"prt_1","delete":false,"at":"2026-11-24T10:00:00Z","body":{"text":"export AWS_ACCESS_KEY_ID=` + plantedKey + `"}}
{"cursor":3,"op_id":"p2","batch_id":"b","seq":2,"kind":"part","key":"prt_2","delete":false,"at":"2026-11-24T10:00:00Z","body":{"text":"done"}}
`
	file := filepath.Join(t.TempDir(), "planted.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(header+ops), 0o600))
	return file
}

// settingsOf returns token's share's settings.
func settingsOf(t *testing.T, url, token string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, done := redeemOn(ctx, t, url, token)
	defer done()
	s, err := sh.Settings(ctx)
	require.NoError(t, err)
	return map[string]any{"privacy": s.Privacy.String(), "retain_ops": s.RetainOps, "retain_for": s.RetainFor.String()}
}

// TestImportSettingsFromTheExport: an export whose header says privacy
// off and retain_ops 1 is imported with the server's privacy (redact:
// the planted key is stored redacted) and no retention, and import says
// what it did not apply; --apply-settings applies both and says so; a
// stricter privacy (reject) is applied without the flag. Before: the
// file's off and retain_ops 1 were applied without a word, the planted
// key stored verbatim.
func TestImportSettingsFromTheExport(t *testing.T) {
	x := newXIEnv(t, onBolt)
	weak := plantedExport(t, "0123456789abcdef0123456789abcdef", `{"privacy":"off","retain_ops":1}`)
	out, stderr, code := x.run("", append([]string{"import", "--file", weak}, x.admin()...)...)
	require.Equal(t, 0, code, stderr)
	token := firstLine(out)
	assert.Equal(t, map[string]any{"privacy": "redact", "retain_ops": uint64(0), "retain_for": "0s"}, settingsOf(t, x.srv.URL, token))
	assert.Contains(t, stderr, "the export's settings: privacy off, retain_ops 1; the new share's: privacy redact, no retention")
	assert.Contains(t, stderr, "not applied from the export: privacy off (weaker than the new share's redact); retention (retain_ops 1")
	assert.Contains(t, stderr, "--apply-settings")
	got := readAll(t, x.srv.URL, token)
	require.Len(t, got, 3)
	assert.NotContains(t, string(got[1].Body), plantedKey, "the planted key is redacted")
	assert.Contains(t, string(got[1].Body), "[REDACTED:")

	out, stderr, code = x.run("", append([]string{"import", "--file", weak, "--new", "--apply-settings"}, x.admin()...)...)
	require.Equal(t, 0, code, stderr)
	token = firstLine(out)
	assert.Equal(t, map[string]any{"privacy": "off", "retain_ops": uint64(1), "retain_for": "0s"}, settingsOf(t, x.srv.URL, token))
	assert.Contains(t, stderr, "the new share's: privacy off, retain_ops 1")
	assert.NotContains(t, stderr, "not applied")

	strict := plantedExport(t, "fedcba9876543210fedcba9876543210", `{"privacy":"reject"}`)
	out, stderr, code = x.run("", append([]string{"import", "--file", strict, "--json"}, x.admin()...)...)
	assert.Equal(t, 4, code, "the op with the planted key is rejected: %s", stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, map[string]any{"privacy": "reject", "retain_ops": float64(0), "not_applied": []any{}}, res["settings"])
	assert.Equal(t, float64(1), res["rejected"])
}

package main_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// tokenRE matches a token's text (sturdyref's format, docs/design.md §4).
var tokenRE = regexp.MustCompile(`svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}`)

// delegation drives the CLI against one server and checks every
// command's output for leaks: stderr never holds a token, and stdout
// holds at most one, a fresh one, printed by a command that mints.
type delegation struct {
	t    *testing.T
	url  string
	seen map[string]bool // every token printed so far
}

func newDelegation(t *testing.T, srv *servertest.Server) (*delegation, string) {
	return &delegation{t: t, url: srv.URL, seen: map[string]bool{srv.Admin: true}}, srv.Admin
}

// run runs `sharevat args…` with token and returns stdout, stderr and the
// exit code.
func (d *delegation) run(token string, args ...string) (string, string, int) {
	d.t.Helper()
	return d.runIn("", token, args...)
}

func (d *delegation) runIn(stdin, token string, args ...string) (string, string, int) {
	d.t.Helper()
	out, stderr, code := cliIn(d.t, stdin, []string{"SHAREVAT_URL=" + d.url, "SHAREVAT_TOKEN=" + token}, args...)
	d.checkLeaks(args, out, stderr)
	return out, stderr, code
}

func (d *delegation) checkLeaks(args []string, out, stderr string) {
	d.t.Helper()
	assert.NotContains(d.t, stderr, "svt1_", "%v: stderr shows no token", args)
	mints := args[0] == "create" || args[0] == "grant" || slices.Contains(args, "--all")
	if !mints {
		assert.NotContains(d.t, out, "svt1_", "%v: stdout shows no token", args)
		return
	}
	if !assert.LessOrEqual(d.t, strings.Count(out, "svt1_"), 1, "%v prints one token at most", args) {
		return
	}
	if tok := tokenRE.FindString(out); tok != "" {
		assert.False(d.t, d.seen[tok], "%v printed a token it did not mint", args)
		d.seen[tok] = true
	}
}

// mint runs a command that prints a new token and returns it.
func (d *delegation) mint(token string, args ...string) string {
	d.t.Helper()
	out, stderr, code := d.run(token, args...)
	require.Equal(d.t, 0, code, "%v: %s", args, stderr)
	tok := firstLine(out)
	require.Regexp(d.t, "^"+tokenRE.String()+"$", tok, "%v prints the token alone", args)
	return tok
}

// exits asserts the exit code of a command.
func (d *delegation) exits(want int, token string, args ...string) string {
	d.t.Helper()
	out, stderr, code := d.run(token, args...)
	assert.Equal(d.t, want, code, "%v: stdout %q stderr %q", args, out, stderr)
	return out
}

// grantID is the public part of a token.
func grantID(token string) string { return token[len("svt1_") : len("svt1_")+24] }

// inspectFields parses the "key: value" lines of `inspect`.
func inspectFields(out string) map[string]string {
	f := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f[k] = strings.TrimSpace(v)
	}
	return f
}

// jsonGrant is one element of `grants --json`.
type jsonGrant struct {
	GrantID string  `json:"grant_id"`
	Parent  *string `json:"parent"`
	Scope   string  `json:"scope"`
	Label   string  `json:"label"`
	Epoch   uint64  `json:"epoch"`
	State   string  `json:"state"`
}

func (d *delegation) grants(token string) []jsonGrant {
	d.t.Helper()
	out := d.exits(0, token, "grants", "--json")
	var gs []jsonGrant
	require.NoError(d.t, json.Unmarshal([]byte(out), &gs), out)
	return gs
}

// TestDelegationWalkthrough runs the README's delegation walk-through
// against a real server process: the owner A grants B read-only and C
// read+append+delegate for an hour; C grants D read; the tree, inspect,
// revoking C's subtree and bumping the epoch, with the exit codes of
// docs/design.md §11.
func TestDelegationWalkthrough(t *testing.T) {
	d, admin := newDelegation(t, servertest.Start(t, servertest.Options{}))
	a := d.mint(admin, "create", "--title", "delegation")

	b := d.mint(a, "grant", "--scope", "read", "--label", "bob")
	d.exits(0, b, "read")
	_, _, code := d.runIn(`{"kind":"event","body":{}}`+"\n", b, "append")
	assert.Equal(t, 3, code, "a read-only token cannot append")
	d.exits(3, b, "grant", "--scope", "read")

	c := d.mint(a, "grant", "--scope", "read,append,delegate", "--ttl", "1h", "--label", "carol")
	dd := d.mint(c, "grant", "--scope", "read", "--label", "dave")
	d.exits(3, c, "grant", "--scope", "read,append,admin")
	d.exits(3, c, "grant", "--scope", "read", "--ttl", "2h")

	checkTree(t, d, a, b, c, dd)
	checkInspect(t, d, admin, c)
	checkRevoke(t, d, a, b, c, dd)
}

// checkTree: `grants` shows A → {B, C}, C → D, as JSON and as a tree.
func checkTree(t *testing.T, d *delegation, a, b, c, dd string) {
	gs := d.grants(a)
	require.Len(t, gs, 4)
	parents := map[string]string{}
	for _, g := range gs {
		parents[g.GrantID] = ""
		if g.Parent != nil {
			parents[g.GrantID] = *g.Parent
		}
		assert.Equal(t, "live", g.State, g.GrantID)
	}
	want := map[string]string{grantID(a): "", grantID(b): grantID(a), grantID(c): grantID(a), grantID(dd): grantID(c)}
	assert.Equal(t, want, parents, "each grant's parent is the grant that minted it")
	assert.Equal(t, grantID(a), gs[0].GrantID, "the root comes first")

	out := d.exits(0, a, "grants")
	for tok, indent := range map[string]int{a: 0, b: 2, c: 2, dd: 4} {
		assert.Regexp(t, "(?m)^"+strings.Repeat(" ", indent)+grantID(tok)+" ", out, "indented by depth")
	}
	assert.Less(t, strings.Index(out, grantID(c)), strings.Index(out, grantID(dd)), "D under C")

	own := d.grants(c)
	require.Len(t, own, 2, "C sees its own subtree")
	assert.Equal(t, []string{grantID(c), grantID(dd)}, []string{own[0].GrantID, own[1].GrantID})
	assert.Regexp(t, "(?m)^"+grantID(c)+" ", d.exits(0, c, "grants"), "C's parent is not in its list: C is a root there")
}

// checkInspect: inspect says what C's token and the admin token are.
func checkInspect(t *testing.T, d *delegation, admin, c string) {
	f := inspectFields(d.exits(0, c, "inspect"))
	assert.Equal(t, "true", f["valid"])
	assert.Equal(t, "share token", f["kind"])
	assert.Equal(t, "read,append,delegate", f["scope"])
	assert.Equal(t, grantID(c), f["grant"])
	assert.NotEqual(t, "never", f["expires"], "C expires in an hour")

	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(d.exits(0, c, "inspect", "--json")), &j))
	assert.Equal(t, true, j["valid"])
	assert.Equal(t, "read,append,delegate", j["scope"])
	assert.Equal(t, float64(1), j["epoch"])

	f = inspectFields(d.exits(0, admin, "inspect"))
	assert.Equal(t, "admin token", f["kind"])
	assert.Equal(t, "true", f["valid"])
}

// checkRevoke: revoking C cuts C and D and nothing else; revoke --all
// kills every earlier token and prints a new owner token.
func checkRevoke(t *testing.T, d *delegation, a, b, c, dd string) {
	out := d.exits(0, a, "revoke", "--grant", grantID(c))
	assert.Contains(t, out, "revoked "+grantID(c)+" and everything minted from it")
	d.exits(3, c, "read")
	d.exits(3, dd, "read")
	d.exits(0, b, "read")

	n := d.mint(a, "revoke", "--all")
	for _, old := range []string{a, b} {
		d.exits(3, old, "read")
	}
	d.exits(0, n, "read")

	states := map[string]string{}
	for _, g := range d.grants(n) {
		states[g.GrantID] = g.State
	}
	assert.Equal(t, map[string]string{grantID(a): "fenced", grantID(b): "fenced", grantID(c): "revoked",
		grantID(dd): "revoked", grantID(n): "live"}, states)

	f := inspectFields(d.exits(3, b, "inspect"))
	assert.Equal(t, "false (unknown, revoked, expired or fenced)", f["valid"])
	assert.Equal(t, grantID(b), f["grant"], "the public grant id is shown")
	f = inspectFields(d.exits(3, "svt1_not-a-token", "inspect"))
	assert.Equal(t, "false (malformed)", f["valid"])
}

// TestDelegationUsageErrors: bad command lines exit 2 before any
// connection is made, and never echo a token given by mistake.
func TestDelegationUsageErrors(t *testing.T) {
	tok := "svt1_" + strings.Repeat("a", 24) + "_" + strings.Repeat("B", 43)
	env := []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_TOKEN=" + tok}
	for name, args := range map[string][]string{
		"unknown right":     {"grant", "--scope", "read,frob"},
		"no scope":          {"grant"},
		"empty scope word":  {"grant", "--scope", "read,"},
		"negative ttl":      {"grant", "--scope", "read", "--ttl", "-1h"},
		"grant and all":     {"revoke", "--grant", strings.Repeat("a", 24), "--all"},
		"neither":           {"revoke"},
		"token as grant id": {"revoke", "--grant", tok},
		"short grant id":    {"revoke", "--grant", "abc"},
		"stray argument":    {"inspect", "extra"},
		"share without all": {"revoke", "--share", "abc"},
	} {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := cliIn(t, "", env, args...)
			assert.Equal(t, 2, code, "%v exits 2: %s", args, stderr)
			assert.Empty(t, out)
			assert.NotContains(t, stderr, "svt1_", "no token echoed")
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		})
	}
}

// TestResetOwnerCLI: with the server's admin token, `revoke --all --share`
// recovers a share whose owner token is lost: the old token exits 3, the
// printed one works.
func TestResetOwnerCLI(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	adminEnv := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN_FILE=" + filepath.Join(srv.Data, "admin.token")}
	out, stderr, code := cliIn(t, "", adminEnv, "create", "--json")
	require.Equal(t, 0, code, stderr)
	var created struct{ ShareID, Token string }
	require.NoError(t, json.Unmarshal([]byte(out), &struct {
		ShareID *string `json:"share_id"`
		Token   *string `json:"token"`
	}{&created.ShareID, &created.Token}))

	out, stderr, code = cliIn(t, "", adminEnv, "revoke", "--all", "--share", created.ShareID)
	require.Equal(t, 0, code, stderr)
	fresh := firstLine(out)
	assert.True(t, strings.HasPrefix(fresh, "svt1_"))
	assert.Contains(t, stderr, "epoch is now 2")

	_, _, code = cliIn(t, "", []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + created.Token}, "read")
	assert.Equal(t, 3, code, "the lost owner token is dead")
	_, stderr, code = cliIn(t, "", []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + fresh}, "read")
	assert.Equal(t, 0, code, stderr)
	_, _, code = cliIn(t, "", adminEnv, "revoke", "--all", "--share", "nosuchshare")
	assert.Equal(t, 1, code, "an unknown share is notFound")
}

package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/internal/vattest"
	srvconfig "github.com/sharevat/sharevat/server"
)

// outage is a server whose store can be taken down and brought back.
type outage struct {
	url, token string
	down, up   func()
}

// boltOutage is an in-process vat on a bbolt file wrapped to fail every
// store call a redeem, an append or a read makes while down, as a store
// that cannot be reached does.
func boltOutage(t *testing.T) outage {
	st := &vattest.DownStore{}
	srv := vattest.Start(t, vattest.Options{Wrap: st.Wrap})
	return outage{url: srv.URL, token: srv.MustCreate(t, "outage"), down: st.Down, up: st.Up}
}

// pgOutage is the whole server (in-process, as `sharevat serve --store
// postgres://…` builds it) on a real PostgreSQL of the test's own,
// stopped and started.
func pgOutage(t *testing.T) outage {
	cl := pgtest.Own(t)
	srv, owner := startInProcess(t, servertest.Options{Config: func(c *srvconfig.Config) { c.Store = cl.DSN() }})
	return outage{url: srv.URL, token: owner, down: func() { cl.Stop(t) }, up: func() { cl.Start(t) }}
}

// TestCLIStoreOutage: while the server's store is down, append keeps its
// ops in the outbox and exits 1 saying the server is unavailable — not 3,
// not "cannot send", no advice to discard; inspect says it could not
// check (no "valid: false"); read says unavailable; tail keeps retrying
// (saying so) until its --timeout, a normal end. Once the store is
// back, flush sends the kept ops exactly once and inspect says valid.
// The CLI runs in-process (its subject is what the commands say, not
// the binary); the two stores' cases share nothing and mostly wait out
// --timeout, so they run in parallel.
func TestCLIStoreOutage(t *testing.T) {
	for name, start := range map[string]func(*testing.T) outage{"bolt": boltOutage, "pg": pgOutage} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testCLIStoreOutage(t, start(t))
		})
	}
}

func testCLIStoreOutage(t *testing.T, o outage) {
	env := []string{"SHAREVAT_URL=" + o.url, "SHAREVAT_TOKEN=" + o.token, "SHAREVAT_STATE=" + t.TempDir()}
	ops := `{"op_id":"o1","kind":"message","key":"a","body":{"n":1}}` + "\n" +
		`{"op_id":"o2","kind":"message","key":"b","body":{"n":2}}` + "\n"
	o.down()

	_, stderr, code := cliIn(t, ops, env, "append", "--timeout", "2s")
	assert.Equal(t, 1, code, "append while the store is down exits 1: %s", stderr)
	assert.Contains(t, stderr, "is unavailable: cannot check the token now")
	assert.Contains(t, stderr, "2 op(s) are kept in the outbox")
	assert.Contains(t, stderr, "sharevat flush")
	for _, wrong := range []string{"discard", "cannot send", "check the token:", "unauthorized", "invalid or expired"} {
		assert.NotContains(t, stderr, wrong, "append's advice")
	}

	out, stderr, code := cliIn(t, "", env, "inspect", "--timeout", "1s")
	assert.Equal(t, 1, code, "inspect while the store is down exits 1: %s", stderr)
	assert.NotContains(t, out, "valid:", "inspect does not say whether the token is valid")
	assert.Contains(t, stderr, "could not check whether the token is valid: the server "+o.url+" is unavailable")

	_, stderr, code = cliIn(t, "", env, "read", "--timeout", "1s")
	assert.Equal(t, 1, code, "read while the store is down exits 1: %s", stderr)
	assert.Contains(t, stderr, "is unavailable: cannot check the token now")
	assert.NotContains(t, stderr, "check the token:")

	_, stderr, code = cliIn(t, "", env, "tail", "--timeout", "1s")
	assert.Equal(t, 0, code, "tail rides the outage out until --timeout: %s", stderr)
	assert.Contains(t, stderr, "the server is unavailable (cannot check the token now")

	o.up()
	out, stderr, code = cliIn(t, "", env, "flush", "--timeout", "60s")
	require.Equal(t, 0, code, "flush after the outage: %s", stderr)
	assert.Contains(t, out, "applied 2, duplicate 0, rejected 0")
	out, stderr, code = cliIn(t, "", env, "read")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 2, strings.Count(out, "\n"), "each kept op stored once: %s", out)
	out, stderr, code = cliIn(t, "", env, "inspect")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "valid:   true")
}

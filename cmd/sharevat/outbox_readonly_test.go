package main_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestReadOnlyTokenAppendSaysTheWayOut: an append with a
// read-only token is refused (exit 3) and its ops stay in that token's
// outbox; the error names the outbox file and the two ways out (flush
// --outbox FILE with a token that can append, or outbox discard), and
// never sends the user to a plain `sharevat flush`, which cannot succeed
// with that token. The first way out works.
func TestReadOnlyTokenAppendSaysTheWayOut(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	reader := i9Grant(t, srv.URL, owner, sharevat.ScopeRead)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + state, obNoExitSleep}

	_, stderr, code := cliIn(t, obThreeOps, append(env, "SHAREVAT_TOKEN="+reader), "append")
	assert.Equal(t, 3, code, stderr)
	path := obOutboxPath(t, state, reader)
	assert.Contains(t, stderr, "3 op(s) stay pending in the outbox "+path)
	assert.Contains(t, stderr, "`sharevat flush --outbox "+path+"`")
	assert.Contains(t, stderr, "sharevat outbox discard --pending --outbox "+path)
	assert.NotContains(t, stderr, "run `sharevat flush`")
	assert.NotContains(t, stderr, reader)

	out, stderr, code := cliIn(t, "", append(env, "SHAREVAT_TOKEN="+owner), "flush", "--outbox", path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "applied 3, duplicate 0, rejected 0; head is 3")
	assert.Len(t, readAll(t, srv.URL, owner), 3)
}

// i9Grant mints a token of owner's share with scope.
func i9Grant(t *testing.T, url, owner string, scope sharevat.Scope) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, owner)
	require.NoError(t, err)
	m, err := sh.Grant(ctx, scope, 0, "read-only test")
	require.NoError(t, err)
	return m.Token
}

package capnweb_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"
)

// postBatch sends an HTTP batch (the lines joined by "\n") to the env's
// /capnweb and answers the status and the body.
func (e *env) postBatch(t *testing.T, lines []string) (int, string) {
	t.Helper()
	url := "http" + strings.TrimPrefix(e.url, "ws")
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// batchLines is a batch that restores token (id 1), gets its appender
// (id 2), mints a grant (id 3) and then appends one op per call, n calls
// (ids 4 to n+3), and pulls only the answer pull.
func batchLines(token string, n, pull int) []string {
	lines := []string{
		fmt.Sprintf(`["push",["pipeline",0,["restore"],[%q]]]`, token),
		`["push",["pipeline",1,["share","appender"],[]]]`,
		`["push",["pipeline",1,["share","grant"],[{"read":true},0,"from a batch"]]]`,
	}
	for i := range n {
		lines = append(lines, fmt.Sprintf(
			`["push",["pipeline",2,["append"],[{"epoch":["pipeline",1,["access","epoch"]],"ops":[[{"opId":"op%d","kind":"message","key":"m%d","body":{"n":%d}}]]}]]]`,
			i, i, i))
	}
	return append(lines, fmt.Sprintf(`["pull",%d]`, pull))
}

// TestBatchOverLimitRunsNothing: a batch of more calls than the session
// admits in flight (1,100 > 1,024) is refused with 400 before any call
// runs: no op is appended and no grant is minted (before the fix, 8 appends
// were applied and a grant minted, its token lost).
func TestBatchOverLimitRunsNothing(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "batch")
	status, body := e.postBatch(t, batchLines(token, 1097, 1100))
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body, "too many calls")

	sh := e.srv.MustRestore(t, token)
	got, _, err := sh.Fetch(context.Background())
	require.NoError(t, err)
	assert.Zero(t, got.Head, "ops appended by a refused batch")
	grants, err := sh.Grants(context.Background())
	require.NoError(t, err)
	assert.Len(t, grants, 1, "only the owner grant: a refused batch minted one")
}

// TestBatchRunsUnpulledCalls: every pushed call of a batch runs, pulled
// or not (capnweb's protocol: a push is evaluated on receipt; the pull
// only asks for its answer). Only the grant is pulled; the 50 appends
// after it are in the log all the same.
func TestBatchRunsUnpulledCalls(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "batch")
	status, body := e.postBatch(t, batchLines(token, 50, 3))
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `["resolve",3,`)

	sh := e.srv.MustRestore(t, token)
	got, _, err := sh.Fetch(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 50, got.Head, "every append of the batch applied")
	grants, err := sh.Grants(context.Background())
	require.NoError(t, err)
	assert.Len(t, grants, 2, "the owner grant and the batch's")
}

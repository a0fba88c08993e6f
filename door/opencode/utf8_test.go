package opencode_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInvalidUTF8IsRefused: opencode sends JSON, which is UTF-8; bytes
// that are not (a raw 0xff in a string) were stored and served back raw
// (issue 32). Invariant: a sync with such an item, and a create with
// such a session id, answer 400 naming UTF-8 and store nothing.
func TestInvalidUTF8IsRefused(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_utf8")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)

	r := syncRaw(t, d.base, sh, `{"type":"message","data":{"id":"m1","text":"caf`+"\xe9"+`"}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "UTF-8")
	r = syncRaw(t, d.base, sh, `{"type":"message","data":{"id":"m`+"\xff"+`"}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	_, got := items(t, d, sh)
	require.Len(t, got, 1, "a refused sync wrote something")

	r = call(t, "POST", d.base+"/api/share", `{"sessionID":"ses_`+"\xff"+`"}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "UTF-8")
	require.Equal(t, 1, countShares(t, d.Server))
}

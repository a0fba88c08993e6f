package opencode_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The items of a small session, as opencode sends them (whole objects,
// key order and number text as opencode wrote them).
const (
	itSession = `{"type":"session","data":{"id":"ses_1","title":"hello","time":{"created":1000,"updated":2000}}}`
	itMessage = `{"type":"message","data":{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1500}}}`
	itPart    = `{"type":"part","data":{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi  there","n":1.50}}`
	itDiff    = `{"type":"session_diff","data":[]}`
)

// TestDoorCreateSyncDataDelete: the API round trip opencode makes.
// Invariant: a create answers {id,url,secret} with url
// <origin>/share/<slug>; a sync stores each item as one op; GET
// /api/share/<slug>/data answers the items sorted by client key with
// each data byte for byte as sent (compacted); DELETE with the secret
// ends the share: data answers 404 and a later sync 401.
func TestDoorCreateSyncDataDelete(t *testing.T) {
	d := startOpen(t)
	s := create(t, d.base, "ses_1")
	require.NotEmpty(t, s.ID)
	require.True(t, strings.HasPrefix(s.URL, d.HTTP+"/share/svt1_"), s.URL)
	require.True(t, strings.HasPrefix(s.Secret, "svt1_"))
	require.NotEqual(t, slug(s), s.Secret)

	r := syncRaw(t, d.base, s, itPart+","+itMessage+","+itSession+","+itDiff)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))

	status, got := items(t, d, s)
	require.Equal(t, http.StatusOK, status)
	var types []string
	for _, it := range got {
		types = append(types, it.Type)
	}
	require.Equal(t, []string{"message", "part", "session", "session_diff"}, types)
	require.JSONEq(t, `{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi  there","n":1.50}`, string(got[1].Data))
	require.Equal(t, `{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi  there","n":1.50}`, string(got[1].Data))

	r = call(t, "DELETE", d.base+"/api/share/"+s.ID, map[string]string{"secret": s.Secret})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	status, _ = items(t, d, s)
	require.Equal(t, http.StatusNotFound, status)
	r = syncRaw(t, d.base, s, itSession)
	require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
}

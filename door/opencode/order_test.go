package opencode_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two versions of each item: older (earlier time, or the same time and a
// shorter streamed text) and newer.
const (
	oldSession = `{"type":"session","data":{"id":"ses_o","title":"draft","time":{"created":1000,"updated":2000}}}`
	newSession = `{"type":"session","data":{"id":"ses_o","title":"final","time":{"created":1000,"updated":3000}}}`
	oldTool    = `{"type":"part","data":{"id":"prt_t","messageID":"msg_1","type":"tool","state":{"status":"running","time":{"start":5000}}}}`
	newTool    = `{"type":"part","data":{"id":"prt_t","messageID":"msg_1","type":"tool","state":{"status":"completed","time":{"start":5000,"end":6000}}}}`
	oldText    = `{"type":"part","data":{"id":"prt_x","messageID":"msg_1","type":"text","text":"Hel","time":{"start":7000}}}`
	newText    = `{"type":"part","data":{"id":"prt_x","messageID":"msg_1","type":"text","text":"Hello","time":{"start":7000}}}`
)

// TestOutOfOrderBatches: opencode's batches are not serialized, so the
// newer of two may arrive first. Invariant: whichever order two batches
// arrive in, GET …/data (and the vat's state the page shows) holds the
// newer version of every item (later time.*/state.time.*, then at equal
// times the longer body), and the older batch, arriving second, stores
// nothing.
func TestOutOfOrderBatches(t *testing.T) {
	d := startOpen(t)
	older := oldSession + "," + oldTool + "," + oldText
	newer := newSession + "," + newTool + "," + newText
	want := map[string]string{}
	for _, it := range []string{newSession, newTool, newText} {
		want[it[len(`{"type":"`):len(`{"type":"`)+4]+string(dataOf(t, it))] = ""
	}
	for i, order := range [][2]string{{older, newer}, {newer, older}} {
		s := create(t, d.base, "ses_"+string(rune('a'+i)))
		for _, batch := range order {
			r := syncRaw(t, d.base, s, batch)
			require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		}
		_, got := items(t, d, s)
		require.Len(t, got, 3)
		for _, it := range got {
			_, ok := want[it.Type[:4]+string(it.Data)]
			require.True(t, ok, "an older version is shown: %s %s", it.Type, it.Data)
		}
	}
}

// dataOf is the data of one item.
func dataOf(t *testing.T, it string) []byte {
	t.Helper()
	var x item
	require.NoError(t, jsonUnmarshal([]byte(it), &x))
	return x.Data
}

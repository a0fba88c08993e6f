package page_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// textPart is a part op whose body carries a version stamp (time.end).
func textPart(tb testing.TB, opID, key, msg, text string, end int64) sharevat.Op {
	tb.Helper()
	body, err := json.Marshal(map[string]any{"id": key, "messageID": msg, "type": "text", "text": text, "time": map[string]any{"start": 1, "end": end}})
	require.NoError(tb, err)
	return sharevat.Op{OpID: opID, Kind: sharevat.KindPart, Key: key, Body: body}
}

// TestSharePageKeepsNewestVersion: the vat's state keeps the newest
// version of an item whatever order its ops came in, and so does the
// page, both for ops it reads when it opens and for ops it gets live.
func TestSharePageKeepsNewestVersion(t *testing.T) {
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	o := createShare(t, vat, sharevat.MetaPatch{})
	ops := message("ses_v", "msg_v1", "prt_v0", "assistant", "first", 1763950000000)
	ops = append(ops,
		textPart(t, "a2", "prt_a", "msg_v1", "tool finished (newest)", 2000),
		textPart(t, "a1", "prt_a", "msg_v1", "tool running (stale)", 1000),
	)
	o.appendOps(t, ops)
	link, _ := o.readLink(t, vat)
	b.open(t, link)
	b.waitFor(t, "the session", isLive+" && "+partShown("prt_a"), 20*time.Second)
	assert.Equal(t, "tool finished (newest)", eval[string](t, b, partText("prt_a")), "the page opens on the state's version")

	o.appendOps(t, []sharevat.Op{
		textPart(t, "b2", "prt_b", "msg_v1", "streamed text, complete", 3000),
		textPart(t, "b1", "prt_b", "msg_v1", "streamed te", 2500),
		textPart(t, "a0", "prt_a", "msg_v1", "tool pending (older still)", 500),
		textPart(t, "c", "prt_c", "msg_v1", "marker", 4000),
	})
	b.waitFor(t, "the live ops", partShown("prt_c"), 10*time.Second)
	assert.Equal(t, "streamed text, complete", eval[string](t, b, partText("prt_b")), "a live op with an older version does not replace the newer")
	assert.Equal(t, "tool finished (newest)", eval[string](t, b, partText("prt_a")))
	assertClean(t, b)
}

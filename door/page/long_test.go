package page_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// longSession writes a coding session's shape to o: n ops of about 2.9
// KB each, turns of a user message and an assistant message with tool
// and text parts, and 30% of ops rewriting an earlier part with a newer
// version (a tool call completing, a text growing). It appends in
// batches as it goes and returns the key of the last part and the
// message of a part written about back ops before the end.
func longSession(tb testing.TB, o *owner, ses string, n, back int) (last, old string) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(33, 3))
	filler := strings.Repeat("go test -race ./store/... ok\t", 100) // 2.9 KB of tool output
	var batch []sharevat.Op
	var parts []map[string]any
	t0 := int64(1763950000000)
	add := func(kind, key string, body map[string]any) {
		raw, err := json.Marshal(body)
		require.NoError(tb, err)
		batch = append(batch, sharevat.Op{OpID: fmt.Sprintf("op%d", o.n*1000+len(batch)), Kind: kind, Key: key, Body: raw})
		if len(batch) == 500 {
			o.appendOps(tb, batch)
			batch = batch[:0]
		}
	}
	for i, turn := 0, 0; i < n; turn++ {
		now := t0 + int64(turn)*10000
		for _, role := range []string{"user", "assistant"} {
			msg := fmt.Sprintf("msg_%07d_%s", turn, role[:1])
			add(sharevat.KindMessage, msg, map[string]any{"id": msg, "sessionID": ses, "role": role, "time": map[string]any{"created": now}, "pad": filler[:2000]})
			i++
			if n-i < back && old == "" {
				old = msg
			}
			for p := 0; p < 3 && i < n; p++ {
				if rng.IntN(10) < 3 && len(parts) > 0 {
					body := parts[rng.IntN(len(parts))]
					body["time"] = map[string]any{"start": now, "end": now + int64(p) + 1}
					add(sharevat.KindPart, body["id"].(string), body)
				} else {
					last = fmt.Sprintf("prt_%07d_%s%d", turn, role[:1], p)
					body := map[string]any{"id": last, "sessionID": ses, "messageID": msg, "type": "text", "text": fmt.Sprintf("%s part %d: %s", msg, p, filler), "time": map[string]any{"start": now}}
					parts = append(parts, body)
					add(sharevat.KindPart, last, body)
				}
				i++
			}
		}
	}
	if len(batch) > 0 {
		o.appendOps(tb, batch)
	}
	return last, old
}

// domElements is a page expression: the elements in the document.
const domElements = `document.getElementsByTagName("*").length`

// TestSharePageLongSession opens a 50,000-op share: the page shows the
// last message with a bounded DOM, follows a new op live, and loads
// older messages as the reader scrolls up, still with a bounded DOM. It
// logs the time to the last message, the figure docs/performance.md
// gives (SHAREVAT_PAGE_OPS=N measures another size).
func TestSharePageLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("a 50,000-op share")
	}
	n := 50000
	if s := os.Getenv("SHAREVAT_PAGE_OPS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "SHAREVAT_PAGE_OPS")
		require.Greater(t, n, 1000, "SHAREVAT_PAGE_OPS")
	}
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	o := createShare(t, vat, sharevat.MetaPatch{})
	last, old := longSession(t, o, "ses_long", n, min(12000, n/2))
	link, _ := o.readLink(t, vat)

	b.open(t, link)
	took := b.waitFor(t, "the last message", isLive+" && "+partShown(last), 60*time.Second)
	t.Logf("time to last message at %d ops: %v", n, took.Round(time.Millisecond))
	n = eval[int](t, b, domElements)
	t.Logf("DOM elements with the last message shown: %d; JS heap %d MiB", n, eval[int](t, b, `Math.round(performance.memory.usedJSHeapSize / 1048576)`))
	assert.Less(t, n, 20000, "the page keeps only what is near the screen")
	assert.True(t, eval[bool](t, b, fmt.Sprintf(`document.querySelector('#content .part[data-key="%s"]').getBoundingClientRect().top < innerHeight`, last)),
		"the page opens on the last message")

	live := message("ses_long", "msg_9999999_a", "prt_9999999_a0", "assistant", "appended while the page was open", 1763950000000+1e9)
	o.appendOps(t, live)
	b.waitFor(t, "the live op", partShown("prt_9999999_a0"), 20*time.Second)

	b.waitFor(t, "an older message, scrolling up", fmt.Sprintf(`(dispatchEvent(new WheelEvent("wheel", {deltaY: -100})), scrollTo(0, 0), document.querySelector('#content .msg[data-key="%s"]') !== null)`, old), 120*time.Second)
	n = eval[int](t, b, domElements)
	t.Logf("DOM elements after scrolling up to %s: %d", old, n)
	assert.Less(t, n, 20000, "scrolling up keeps the DOM bounded")
	b.screenshot(t, "sharepage-long")
	assertClean(t, b)
}

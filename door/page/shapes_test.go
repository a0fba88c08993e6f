package page_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat"
)

// msgText is a page expression: the text of the message card with this
// key.
func msgText(key string) string {
	return fmt.Sprintf(`(document.querySelector('#content .msg[data-key="' + CSS.escape(%q) + '"]') || {}).textContent`, key)
}

// partIn is a page expression: the key of the message card a part is in.
func partIn(key string) string {
	return fmt.Sprintf(`(document.querySelector('#content .part[data-key="' + CSS.escape(%q) + '"]').closest(".msg") || {dataset: {}}).dataset.key`, key)
}

// TestSharePageAnyShape opens the ops the README's walk-through and the
// guide's TypeScript snippet append — bodies that are not opencode's — and checks
// the page shows each one's text: a message's own text, parts under the
// message they name (by message or messageID), a part whose message
// never arrives shown as a part, and any other body as collapsed JSON.
func TestSharePageAnyShape(t *testing.T) {
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	o := createShare(t, vat, sharevat.MetaPatch{})
	ops := []sharevat.Op{
		{OpID: "s1", Kind: sharevat.KindSession, Key: "ses_1", Body: []byte(`{"title":"fix the login bug"}`)},
		{OpID: "m1", Kind: sharevat.KindMessage, Key: "msg_1", Body: []byte(`{"role":"user","text":"the login form fails"}`)},
		{OpID: "p1", Kind: sharevat.KindPart, Key: "prt_1", Body: []byte(`{"message":"msg_1","text":"looking at auth.go"}`)},
		{OpID: "m2", Kind: sharevat.KindMessage, Key: "msg_2", Body: []byte(`{"text":"late"}`)},
		{OpID: "msg_1:prt_1:0", Kind: sharevat.KindPart, Key: "msg_1:prt_1", Body: []byte(`{"messageID":"msg_1","type":"text","text":"hi"}`)},
		{OpID: "p2", Kind: sharevat.KindPart, Key: "prt_2", Body: []byte(`{"messageID":"msg_never","type":"text","text":"an orphan part"}`)},
		{OpID: "p3", Kind: sharevat.KindPart, Key: "prt_3", Body: []byte(`{"message":"msg_1","metrics":{"files":3,"lines":42}}`)},
		{OpID: "m3", Kind: sharevat.KindMessage, Key: "msg_3", Body: []byte(`{"role":"assistant","content":[{"type":"text","text":"chat-style content"}]}`)},
		{OpID: "p4", Kind: sharevat.KindPart, Key: "prt_4", Body: []byte(`{"type":"text","text":"no message named"}`)},
		{OpID: "e1", Kind: sharevat.KindEvent, Body: []byte(`{"note":"deploy started"}`)},
	}
	o.appendOps(t, ops)
	link, _ := o.readLink(t, vat)
	b.open(t, link)
	b.waitFor(t, "the ops", isLive+" && "+partShown("prt_3"), 20*time.Second)

	assert.Contains(t, eval[string](t, b, msgText("msg_1")), "the login form fails", "a message's own text")
	assert.Contains(t, eval[string](t, b, msgText("msg_2")), "late", "a message with no role")
	assert.Contains(t, eval[string](t, b, msgText("msg_3")), "chat-style content", "content as a list of text objects")
	assert.Equal(t, "msg_1", eval[string](t, b, partIn("prt_1")), "a part linked by its message field")
	assert.Contains(t, eval[string](t, b, partText("prt_1")), "looking at auth.go")
	assert.NotContains(t, eval[string](t, b, partText("prt_1")), `"message"`, "the link is not shown as JSON")
	assert.Contains(t, eval[string](t, b, partText("msg_1:prt_1")), "hi", "the TypeScript snippet's part")
	assert.Equal(t, "msg_1", eval[string](t, b, partIn("msg_1:prt_1")), "a part linked by messageID")
	assert.Contains(t, eval[string](t, b, partText("prt_4")), "no message named", "a part that names no message")
	assert.Equal(t, "msg_never", eval[string](t, b, partIn("prt_2")))
	assert.Contains(t, eval[string](t, b, msgText("msg_never")), "an orphan part")
	assert.Contains(t, eval[string](t, b, msgText("msg_never")), "parts of msg_never")
	assert.Equal(t, "msg_1", eval[string](t, b, partIn("prt_3")))
	assert.False(t, eval[bool](t, b, `document.querySelector('#content .part[data-key="prt_3"] details').open`), "other bodies are collapsed JSON")
	assert.Contains(t, eval[string](t, b, partText("prt_3")), `"lines": 42`)
	assert.Contains(t, eval[string](t, b, `document.querySelector("#content .events").textContent`), "deploy started")
	assert.NotContains(t, eval[string](t, b, `document.body.textContent`), "not received yet")
	b.screenshot(t, "sharepage-any-shape")
	assertClean(t, b)
}

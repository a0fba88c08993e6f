package page_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestDeletedSharePage: /s/#<token> cannot know its share on the server
// (the token is in the fragment), so the page must say the share is
// gone when the redeem fails. A share deleted while its page is open,
// and the same link opened afresh after the delete, both show the dead
// state, say the share was deleted, and show nothing of the session.
func TestDeletedSharePage(t *testing.T) {
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	title := "A share about to be deleted"
	o := createShare(t, vat, sharevat.MetaPatch{Title: &title})
	ops, _ := opencodeOps(t)
	o.appendOps(t, ops)
	link, _ := o.readLink(t, vat)
	b.open(t, link)
	b.waitFor(t, "the session", isLive+" && "+partShown("prt_c560f41a0002Xc1vBn5mQwEr9t"), 20*time.Second)

	require.NoError(t, o.share.Delete(context.Background()))
	b.waitFor(t, "the dead state while open", isRevoked, 10*time.Second)
	assertDeletedShown(t, b)

	b.open(t, "about:blank")
	b.open(t, link)
	b.waitFor(t, "the dead state on a fresh load", isRevoked, 20*time.Second)
	assertDeletedShown(t, b)
	assertClean(t, b)
}

// assertDeletedShown fails unless the page says the share was deleted
// and shows nothing of it.
func assertDeletedShown(t *testing.T, b *browser) {
	t.Helper()
	assert.Contains(t, eval[string](t, b, `document.getElementById("status").textContent`), "the share was deleted")
	assert.Zero(t, eval[int](t, b, `document.getElementById("content").childElementCount`), "the content is gone")
	assert.NotContains(t, eval[string](t, b, `document.body.textContent`), "about to be deleted", "the title is gone")
}

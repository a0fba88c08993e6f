package page_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestSharePage drives the page in headless chromium against the real
// vat: open a read link, see the session; an op appended over /rpc
// appears live; an injection payload stays inert text; a vat restart is
// survived and the page resumes from its cursor; a revoke over /rpc shows
// the revoked state within a second and removes the content.
func TestSharePage(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	vat := startVat(t, dir, "")
	title, project, directory := "Fix the login redirect loop", "webshop", "/home/ana/src/webshop"
	o := createShare(t, vat, sharevat.MetaPatch{Title: &title, ProjectID: &project, Directory: &directory, Status: sharevat.StatusBusy})
	ops, ses := opencodeOps(t)
	ops = append(ops, message(ses, "msg_c560f41b0001Injection000", "prt_c560f41b0002Injection000", "user", payload, 1763950400000)...)
	o.appendOps(t, ops)
	link, grantID := o.readLink(t, vat)

	b.open(t, link)
	took := b.waitFor(t, "the session", isLive+" && "+partShown("prt_c560f41b0002Injection000"), 20*time.Second)
	t.Logf("the page showed %d ops %v after it opened", len(ops), took.Round(time.Millisecond))
	assert.Equal(t, title+" · sharevat", eval[string](t, b, `document.title`))
	assert.Contains(t, eval[string](t, b, `document.querySelector(".session-head").textContent`), directory)
	assert.Equal(t, "text", eval[string](t, b,
		`(document.querySelector('#content .part[data-key="prt_c560f3e2e002Yt4sRn8uWmLd0q"]') || {className: ""}).className.split(" ").pop().replace("part-", "")`))
	b.screenshot(t, "sharepage-session")

	t.Run("injection stays text", func(t *testing.T) {
		assert.Equal(t, payload, eval[string](t, b, partText("prt_c560f41b0002Injection000")))
		assert.True(t, eval[bool](t, b, `window.__pwned === undefined`), "the payload ran")
		assert.Zero(t, eval[int](t, b, `document.querySelectorAll("#content img, #content script, #content [onerror]").length`))
	})

	live := message(ses, "msg_c560f41c0001LiveOp000000", "prt_c560f41c0002LiveOp000000", "assistant", "This op was appended while the page was open.", 1763950410000)
	start := time.Now()
	o.appendOps(t, live)
	b.waitFor(t, "the live op", partShown("prt_c560f41c0002LiveOp000000"), 10*time.Second)
	t.Logf("a live op showed %v after its append was acked", time.Since(start).Round(time.Millisecond))

	test := t // the restarted vat and its owner live as long as the test
	t.Run("vat restart", func(t *testing.T) {
		addr := vat.addr()
		vat.stop(t)
		b.waitFor(t, "the page to notice", `document.getElementById("status").dataset.state === "reconnecting"`, 10*time.Second)
		vat = startVat(test, dir, addr)
		o = redeemOwner(test, vat, o.token)
		after := message(ses, "msg_c560f41d0001AfterRestart", "prt_c560f41d0002AfterRestart", "user", "And this one after the vat restarted.", 1763950420000)
		o.appendOps(t, after)
		b.waitFor(t, "the op after the restart", isLive+" && "+partShown("prt_c560f41d0002AfterRestart"), 30*time.Second)
		assert.Equal(t, 1, eval[int](t, b, `document.querySelectorAll('#content .part[data-key="prt_c560f41c0002LiveOp000000"]').length`),
			"resumed from the cursor: nothing shown twice")
	})

	require.NoError(t, o.share.Revoke(context.Background(), grantID))
	took = b.waitFor(t, "the revoked state", isRevoked, 5*time.Second)
	t.Logf("the page showed the revoke %v after it was acked", took.Round(time.Millisecond))
	assert.Less(t, took, time.Second, "the revoked state shows within a second")
	assert.Zero(t, eval[int](t, b, `document.getElementById("content").childElementCount`), "the content is gone")
	assert.NotContains(t, eval[string](t, b, `document.body.textContent`), "redirect")
	assert.Equal(t, "", eval[string](t, b, `location.hash`), "the dead token is dropped from the address bar")
	b.screenshot(t, "sharepage-revoked")
	assertClean(t, b)
}

// TestSharePagePhone takes the page's screenshot at a phone's width.
func TestSharePagePhone(t *testing.T) {
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	title := "Fix the login redirect loop"
	o := createShare(t, vat, sharevat.MetaPatch{Title: &title, Status: sharevat.StatusIdle})
	ops, _ := opencodeOps(t)
	o.appendOps(t, ops)
	link, _ := o.readLink(t, vat)
	b.do(t, 30*time.Second, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	b.open(t, link)
	b.waitFor(t, "the session", isLive+" && "+partShown("prt_c560f41a0002Xc1vBn5mQwEr9t"), 20*time.Second)
	width := eval[int](t, b, `document.documentElement.scrollWidth`)
	assert.LessOrEqual(t, width, 390, "nothing wider than the phone's screen")
	b.screenshot(t, "sharepage-phone")
	assertClean(t, b)
}

// longTaskProbe records the page's main-thread tasks over 50 ms (the
// Long Tasks API), injected before the page's own scripts.
const longTaskProbe = `window.__longest = 0; window.__longTasks = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) { window.__longTasks++; window.__longest = Math.max(window.__longest, e.duration); } })
  .observe({type: "longtask", buffered: true});`

// TestSharePageLarge opens a 10,000-op session and logs how long the page
// takes to show it and then a live op (no timed assertion: the figures
// are for people).
func TestSharePageLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10,000-op session in a browser")
	}
	b := newBrowser(t)
	vat := startVat(t, t.TempDir(), "")
	title := "A long session"
	o := createShare(t, vat, sharevat.MetaPatch{Title: &title})
	var ops []sharevat.Op
	for i := range 5000 {
		role := []string{"user", "assistant"}[i%2]
		ops = append(ops, message("ses_large", fmt.Sprintf("msg_%06d", i), fmt.Sprintf("prt_%06d", i), role,
			fmt.Sprintf("Message %d of a long session: the page builds its DOM in slices per animation frame.", i), 1763950000000+int64(i)*1000)...)
	}
	start := time.Now()
	o.appendOps(t, ops)
	t.Logf("appended %d ops in %v", len(ops), time.Since(start).Round(time.Millisecond))
	link, _ := o.readLink(t, vat)

	b.open(t, "about:blank")
	_, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: longTaskProbe})
	require.NoError(t, err)
	start = time.Now()
	b.open(t, link)
	b.waitFor(t, "the last op", isLive+" && "+partShown("prt_004999"), 120*time.Second)
	t.Logf("the page showed %d ops %v after navigating; its longest task took %.0f ms (%d tasks over 50 ms)", len(ops),
		time.Since(start).Round(time.Millisecond), eval[float64](t, b, `window.__longest`), eval[int](t, b, `window.__longTasks`))
	start = time.Now()
	o.appendOps(t, message("ses_large", "msg_005000", "prt_005000", "user", "one more", 1763960000000))
	b.waitFor(t, "a live op", partShown("prt_005000"), 30*time.Second)
	t.Logf("then a live op showed %v after its append was acked", time.Since(start).Round(time.Millisecond))
	assert.LessOrEqual(t, eval[int](t, b, `document.querySelectorAll("#content .msg").length`), 600, "only the messages near the screen are in the DOM")
	last := eval[string](t, b, `document.querySelector("#content .messages").lastElementChild.dataset.key`)
	assert.Equal(t, "msg_005000", last, "messages in order")
	assertClean(t, b)
}

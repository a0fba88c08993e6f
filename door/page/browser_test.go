package page_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium, which CI installs.
const chromiumPath = "/usr/bin/chromium"

// browser is one headless chromium tab and what the page logged in it.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	logs []string // console messages, log entries and exceptions
}

// newBrowser starts a fresh headless chromium (its own profile
// directory) and opens one tab; the test's cleanup closes it. It skips
// the test, loudly, when chromium is not installed.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("NOTICE: chromium not installed: the browser test did not run (CI installs Debian's chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, b.record))
	return b
}

// record keeps what the page reports: console calls, log entries (CSP
// violations among them) and uncaught exceptions.
func (b *browser) record(ev any) {
	var line string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range e.Args {
			args = append(args, string(a.Value))
		}
		line = fmt.Sprintf("console.%s %s", e.Type, strings.Join(args, " "))
	case *log.EventEntryAdded:
		line = fmt.Sprintf("log %s %s: %s", e.Entry.Level, e.Entry.Source, e.Entry.Text)
	case *runtime.EventExceptionThrown:
		line = "exception " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			line += " " + e.ExceptionDetails.Exception.Description
		}
	default:
		return
	}
	b.mu.Lock()
	b.logs = append(b.logs, line)
	b.mu.Unlock()
}

// logged returns what the page logged so far.
func (b *browser) logged() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.logs...)
}

// do runs actions within d.
func (b *browser) do(t *testing.T, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, d)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, steps...))
}

// open navigates to url. The first call starts the browser, so it runs
// on the tab's own context (a timeout there would end the browser).
func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Navigate(url)))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

// waitFor waits until the page's expression is true, polling on each
// animation frame, and returns how long it took.
func (b *browser) waitFor(t *testing.T, what, expr string, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(b.ctx, d+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d)))
	if err != nil {
		status := eval[string](t, b, `document.getElementById("status").textContent`)
		t.Fatalf("waiting for %s: %v (status %q); the page logged:\n%s", what, err, status, strings.Join(b.logged(), "\n"))
	}
	return time.Since(start)
}

// screenshot writes a full-page PNG to the artifacts directory and logs
// its path: $SHAREVAT_ARTIFACTS, else <tmp>/sharevat-artifacts.
func (b *browser) screenshot(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	dir := os.Getenv("SHAREVAT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sharevat-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
	return path
}

// partShown is a page expression: a part with this key is on the page.
func partShown(key string) string {
	return fmt.Sprintf(`document.querySelector('#content .part[data-key="' + CSS.escape(%q) + '"]') !== null`, key)
}

// partText is a page expression: the text of the part with this key.
func partText(key string) string {
	return fmt.Sprintf(`(document.querySelector('#content .part[data-key="' + CSS.escape(%q) + '"]') || {}).textContent`, key)
}

const (
	isLive    = `document.getElementById("status").dataset.state === "live"`
	isRevoked = `document.getElementById("status").dataset.state === "revoked"`
)

// assertClean fails when the page logged a CSP violation or an uncaught
// exception.
func assertClean(t *testing.T, b *browser) {
	t.Helper()
	for _, l := range b.logged() {
		assert.NotContains(t, l, "Content Security Policy", "the page broke its own policy")
		assert.NotContains(t, l, "Refused to", "the page broke its own policy")
		assert.False(t, strings.HasPrefix(l, "exception"), "uncaught: %s", l)
	}
}

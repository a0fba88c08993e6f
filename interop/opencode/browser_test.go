package opencode_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium, which CI installs.
const chromiumPath = "/usr/bin/chromium"

// page expressions on the share page (sharepage/assets).
const (
	pageLive    = `document.getElementById("status").dataset.state === "live"`
	pageRevoked = `document.getElementById("status").dataset.state === "revoked"`
	pageText    = `document.getElementById("content").innerText`
)

// openPage opens url in a fresh headless chromium (closed at the test's
// end). It skips the test, loudly, when chromium is not installed.
func openPage(t *testing.T, url string) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("NOTICE: chromium not installed: the opencode end-to-end test did not run (CI installs Debian's chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	return ctx
}

// waitPage waits up to d until the page expression is true and returns
// how long it took.
func waitPage(t *testing.T, ctx context.Context, what, expr string, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, d+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(wctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d)))
	require.NoError(t, err, "waiting for the page: %s", what)
	return time.Since(start)
}

// evalPage evaluates a page expression.
func evalPage[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

package tsclient_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tab is one headless Chromium tab and what its page logged.
type tab struct {
	ctx  context.Context
	mu   sync.Mutex
	logs []string // console calls and uncaught exceptions
}

// newTab starts a fresh headless Chromium (its own profile directory)
// and opens one tab; the test's cleanup closes it.
func newTab(t *testing.T) *tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &tab{ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, b.record))
	return b
}

// record keeps console calls and uncaught exceptions.
func (b *tab) record(ev any) {
	var line string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range e.Args {
			args = append(args, string(a.Value))
		}
		line = fmt.Sprintf("console.%s %s", e.Type, strings.Join(args, " "))
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

// logged is what the page logged so far, a line each.
func (b *tab) logged() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.logs, "\n")
}

// evalJS evaluates expr in the page, awaiting it if it is a promise, and
// decodes its JSON value into T.
func evalJS[T any](t *testing.T, b *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "%s; the page logged:\n%s", redact(expr), redact(b.logged()))
	return v
}

// tokenShape matches a sharevat token, kept out of the test's messages.
var tokenShape = regexp.MustCompile(`svt1_[A-Za-z0-9_-]+`)

// redact replaces every token in s.
func redact(s string) string { return tokenShape.ReplaceAllString(s, "svt1_<redacted>") }

// waitFor waits until the page's expression is true.
func (b *tab) waitFor(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Minute)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(t, err, "waiting for %s; the page logged:\n%s", what, redact(b.logged()))
}

// assertClean fails when the page threw an uncaught exception.
func (b *tab) assertClean(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.logs {
		assert.False(t, strings.HasPrefix(l, "exception"), "uncaught: %s", l)
	}
}

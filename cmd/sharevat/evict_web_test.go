package main_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/hostile"
)

// evictFlags: a connection may hold the whole server-wide budget, so
// that one session can fill it without passing its own limit.
var evictFlags = []string{"--conn-memory", "32MiB", "--memory-budget", "32MiB", "--max-conns-per-ip", "32"}

// TestServeEvictsCapnWebHog: one memory budget for both doors, and the
// pool evicts whoever holds the most on either. A Cap'n Web session
// holds three read answers of the seeded ops (~8 MB each), pulled and
// never released: 25 MB of the 32 MiB budget, steadily; a healthy
// client then reads those ops too, on Cap'n Web and on /rpc (twice at
// once), which needs more than is left. Each healthy read is answered, and the hog is the
// one closed, with 1013 and an abort that says why ("server-memory", the
// session holding the most). Before Cap'n Web sessions joined the pool,
// the healthy client was the one refused (this test failed so).
func TestServeEvictsCapnWebHog(t *testing.T) {
	bin, err := buildPlain()
	require.NoError(t, err)
	srv, fx := startHostileTarget(t, bin, 8, seedOpBytes, evictFlags...)
	for _, door := range []struct {
		name string
		read func(ctx context.Context) (int, error)
	}{
		{"Cap'n Web", func(ctx context.Context) (int, error) { return webReadAll(ctx, srv.URL, fx.Read) }},
		{"/rpc", func(ctx context.Context) (int, error) { return rpcReadAll(ctx, srv.URL, fx.Read) }},
	} {
		t.Run(door.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			hog, after := holdReads(t, ctx, srv.URL, fx.Read, 3)
			t.Logf("the hog holds its answers: the budget is %d of %d bytes used", metric(t, srv.URL, "sharevat_memory_budget_used_bytes"), metric(t, srv.URL, "sharevat_memory_budget_bytes"))
			n, err := door.read(ctx)
			require.NoError(t, err, "the healthy read")
			assert.Equal(t, 8, n, "the healthy read got every seeded op")
			end := hog.Wait(30 * time.Second)
			assert.Equal(t, 1013, end.Code, "the hog is closed: try again later (%+v)", end)
			assert.Equal(t, "server-memory", end.Reason)
			var abort string
			for len(after) > 0 {
				abort = <-after
			}
			assert.Contains(t, abort, `["abort",`, "the hog's last message")
			assert.Contains(t, abort, "server memory budget exhausted and this session holds the most")
		})
	}
}

// holdReads opens a raw Cap'n Web session that reads every op of the
// share of token n times, pulled, and never releases an answer (the Go
// client would), so the server keeps all n. It returns once all n are
// answered, with the session's messages after that.
func holdReads(t *testing.T, ctx context.Context, url, token string, n int) (*hostile.Conn, <-chan string) {
	t.Helper()
	c, err := hostile.Dial(ctx, hostile.WebURL(url))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	msgs := make(chan string, 4*n+16)
	c.ReadText(func(msg []byte) {
		select {
		case msgs <- string(msg):
		default:
		}
	})
	require.NoError(t, c.QueueText(hostile.WebRestore(token)))
	require.NoError(t, c.QueueText(hostile.WebReader(1)))
	for i := range n { // one at a time: together they would pass the session's budget
		require.NoError(t, c.QueueText(hostile.WebRead(2, 0, 1000)))
		require.NoError(t, c.QueueText(hostile.WebPull(int64(3+i))))
		require.NoError(t, c.Flush())
		select {
		case m := <-msgs:
			require.True(t, strings.HasPrefix(m, `["resolve",`), "the hog's read %d is answered: %.200s", i, m)
		case <-ctx.Done():
			t.Fatalf("the hog's read %d was not answered", i)
		}
	}
	return c, msgs
}

// webReadAll reads every op of the share of token over Cap'n Web, on a
// session of its own, and returns how many it got.
func webReadAll(ctx context.Context, url, token string) (int, error) {
	c, err := capnweb.Dial(ctx, hostile.WebURL(url), nil, nil)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	rd, err := hostile.WebReaderOf(ctx, c, token)
	if err != nil {
		return 0, err
	}
	defer rd.Release()
	v, err := rd.Call(ctx, "read", 0, 1000)
	if err != nil {
		return 0, err
	}
	o, _ := v.(*capnweb.Object)
	if o == nil {
		return 0, errors.New("read answered no object")
	}
	ops, _ := o.Get("ops")
	list, _ := ops.([]capnweb.Value)
	return len(list), nil
}

// rpcReadAll reads every op of the share of token over /rpc and returns
// how many it got.
func rpcReadAll(ctx context.Context, url, token string) (int, error) {
	c, err := client.Dial(ctx, url, nil)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	sh, err := c.Redeem(ctx, token)
	if err != nil {
		return 0, err
	}
	rd, err := sh.Reader(ctx)
	if err != nil {
		return 0, err
	}
	// Two reads at once, so the answers in flight (~16.6 MB) need more
	// than the hog leaves whatever the engine's per-answer overhead (one
	// ~8.3 MB answer fits the ~8.6 MB left since our engine holds no
	// answer for a Finish); each must get every op.
	counts := make(chan int, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			got, _, err := rd.Read(ctx, 0, 1000)
			counts <- len(got)
			errs <- err
		}()
	}
	n := min(<-counts, <-counts)
	return n, errors.Join(<-errs, <-errs)
}

// metric reads one unlabelled gauge of serve's /metrics.
func metric(t *testing.T, url, name string) int64 {
	t.Helper()
	resp, err := http.Get(strings.Replace(strings.TrimSuffix(url, "/rpc"), "ws://", "http://", 1) + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err)
			return int64(f)
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return 0
}

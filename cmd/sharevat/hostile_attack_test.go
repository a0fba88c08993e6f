package main_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/hostile"
	"github.com/sharevat/sharevat/internal/proctest"
)

// healthyStart starts a healthy client against the vat at url.
type healthyStart func(ctx context.Context, url, token string) (*hostile.Healthy, error)

// memoryAttack runs vectors against srv for attack while the healthy
// clients (by name) keep working, sampling the vat's RSS, and checks the
// invariants the hostile memory tests share: serve is alive; peak RSS ≤
// baseline + 1.5 × the memory budget + slack (baseline: after
// setup, the healthy clients connected); each healthy client made at
// least 20 rounds and some in the second half of the attack (a round or
// two a second at the worst, under every vector at once on two cores);
// a fresh client works afterwards.
func memoryAttack(t *testing.T, srv *proctest.Server, fx hostile.Fixture, attack time.Duration, slack int64,
	healthy map[string]healthyStart, vectors func(ctx context.Context) []*hostile.Report) {
	t.Helper()
	pid := srv.Cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	clients := map[string]*hostile.Healthy{}
	for name, start := range healthy {
		h, err := start(ctx, srv.URL, fx.Owner)
		require.NoError(t, err, name)
		clients[name] = h
	}
	baseline, err := hostile.ReadRSS(pid)
	require.NoError(t, err)
	bound := baseline + hostileMemoryBudget*3/2 + slack
	rss := hostile.SampleRSS(pid, 50*time.Millisecond)
	defer rss.Stop()

	actx, acancel := context.WithTimeout(ctx, attack)
	defer acancel()
	start := time.Now()
	reports := vectors(actx)
	attackTime := time.Since(start)
	stats := map[string]hostile.HealthyStats{}
	for name, h := range clients {
		stats[name] = h.Stop()
	}
	peak := rss.Stop()

	for _, r := range reports {
		t.Logf("%s", r)
	}
	t.Logf("RSS: baseline %s, peak %s, bound %s (%d samples); attack %.1fs", hostile.MiB(baseline), hostile.MiB(peak),
		hostile.MiB(bound), rss.Samples(), attackTime.Seconds())
	for name, hs := range stats {
		t.Logf("healthy %s client: %s; per second: %v", name, hs, hs.Windows)
	}
	select {
	case <-srv.Done():
		t.Fatalf("serve exited during the attack (%v):\n%s", srv.Err(), tail(srv.Log.String(), 40))
	default:
	}
	assert.LessOrEqual(t, peak, bound, "peak RSS %s over the bound %s", hostile.MiB(peak), hostile.MiB(bound))
	for name, hs := range stats {
		assert.GreaterOrEqual(t, hs.Reads, 20, "%s healthy rounds during the attack", name)
		progress := 0
		for _, w := range hs.Windows[len(hs.Windows)/2:] {
			progress += w
		}
		assert.Positive(t, progress, "%s healthy rounds in the second half of the attack: %v", name, hs.Windows)
	}
	requireServing(t, srv, fx.Owner)
}

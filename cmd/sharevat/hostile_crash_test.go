package main_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/hostile"
	"github.com/sharevat/sharevat/internal/proctest"
)

// hostileBinary is the sharevat binary the hostile tests attack: the one
// TestMain built, unless SHAREVAT_HOSTILE_BIN names another (e.g. a build
// of an older commit, to see these tests fail on it).
func hostileBinary(dflt string) string {
	if b := os.Getenv("SHAREVAT_HOSTILE_BIN"); b != "" {
		return b
	}
	return dflt
}

// startHostileTarget starts `sharevat serve` (bin) on a fresh data
// directory with extra flags, creates a share and a read token, and
// seeds ops ops of opBytes each.
func startHostileTarget(t *testing.T, bin string, ops, opBytes int, extra ...string) (*proctest.Server, hostile.Fixture) {
	t.Helper()
	data := t.TempDir()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "info"}, extra...)
	srv, err := proctest.Start(t, bin, nil, args...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fx, err := hostile.Setup(ctx, srv.URL, data, ops, opBytes)
	require.NoError(t, err)
	return srv, fx
}

// requireServing fails t if serve has exited (giving a crashing process
// a moment to go: a round trip of a healthy client happens first), and
// checks that a fresh healthy client can redeem, append and read back.
func requireServing(t *testing.T, srv *proctest.Server, owner string) {
	t.Helper()
	err := healthyRoundTrip(srv.URL, owner)
	grace := time.Duration(0)
	if err != nil {
		grace = 5 * time.Second // a crashing process refuses connections before it is reaped
	}
	select {
	case <-srv.Done():
		t.Fatalf("serve exited (%v); its log:\n%s", srv.Err(), tail(srv.Log.String(), 40))
	case <-time.After(grace):
	}
	require.NoError(t, err, "a healthy client after the attack")
}

// healthyRoundTrip dials, redeems token, appends one op and reads it back.
func healthyRoundTrip(url, token string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	sh, err := conn.Redeem(ctx, token)
	if err != nil {
		return fmt.Errorf("redeem: %w", err)
	}
	app, err := sh.Appender(ctx)
	if err != nil {
		return err
	}
	id := fmt.Sprintf("after-%d", time.Now().UnixNano())
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: id, Epoch: sh.Access.Epoch,
		Ops: []sharevat.Op{{OpID: id, Kind: "event", Body: []byte(`{}`)}}})
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if ack.Applied != 1 {
		return fmt.Errorf("append: %+v", ack.Results)
	}
	rd, err := sh.Reader(ctx)
	if err != nil {
		return err
	}
	es, _, err := rd.Read(ctx, ack.Results[0].Cursor-1, 1)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(es) != 1 || es[0].OpID != id {
		return fmt.Errorf("read back %d entries, not %s", len(es), id)
	}
	return nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestHostileCrash runs each crash vector of internal/hostile (§1) against a fresh
// `sharevat serve`: a call pipelined on a promised answer's field that
// turns out to hold no capability — Vault.ping's empty results (a race
// with ping's answer, retried up to 500 times without a token) or
// Share.reader()'s pending Reader called with an unknown interface or an
// unknown method (deterministic, read token). Invariants: the serve
// process is still running afterwards, and a healthy client can still
// redeem, append and read. Before the fix each subtest fails: serve exits
// with status 2 (nil PipelineCaller in AnswerQueue.Fulfill).
func TestHostileCrash(t *testing.T) {
	tests := []struct {
		name string
		run  func(ctx context.Context, url string, fx hostile.Fixture) *hostile.Report
	}{
		{"race without token", func(ctx context.Context, url string, _ hostile.Fixture) *hostile.Report {
			return hostile.RaceCrash(ctx, url, 500)
		}},
		{"unknown interface on pending reader", func(ctx context.Context, url string, fx hostile.Fixture) *hostile.Report {
			return hostile.UnknownInterfaceCrash(ctx, url, fx.Read)
		}},
		{"unknown method on pending reader", func(ctx context.Context, url string, fx hostile.Fixture) *hostile.Report {
			return hostile.UnknownMethodCrash(ctx, url, fx.Read)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, fx := startHostileTarget(t, hostileBinary(binary), 1, 100)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rep := tt.run(ctx, srv.URL, fx)
			t.Logf("%s", rep)
			requireServing(t, srv, fx.Owner)
		})
	}
}

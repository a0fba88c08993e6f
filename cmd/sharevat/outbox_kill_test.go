package main_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// obWriter is one client of the kill loop: its own outbox file and
// Session, enqueueing chunks of ops and flushing each through whatever
// the server is doing.
type obWriter struct {
	name      string
	o         *client.Outbox
	s         *client.Redeemer
	good, bad []string // op ids enqueued, in order: valid ones, and the deliberately invalid ones
	err       error
}

// obChunk returns chunk i of writer w: ten valid ops, and on every fifth
// chunk an op the server must reject (unknown kind).
func obChunk(w string, i int) []sharevat.Op {
	var ops []sharevat.Op
	for j := 0; j < 10; j++ {
		id := fmt.Sprintf("%s-c%d-o%d", w, i, j)
		ops = append(ops, sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: id, Body: []byte(`{"n":1}`)})
	}
	if i%5 == 4 {
		ops = append(ops, sharevat.Op{OpID: fmt.Sprintf("%s-c%d-bad", w, i), Kind: "nope", Body: []byte(`{}`)})
	}
	return ops
}

// run enqueues and flushes chunks until stop is closed, then flushes
// what is left once more.
func (w *obWriter) run(ctx context.Context, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			w.err = w.o.Flush(ctx, w.s)
			return
		default:
		}
		ops := obChunk(w.name, i)
		if _, err := w.o.Enqueue(ctx, ops...); err != nil {
			w.err = err
			return
		}
		for _, op := range ops {
			if op.Kind == "nope" {
				w.bad = append(w.bad, op.OpID)
			} else {
				w.good = append(w.good, op.OpID)
			}
		}
		if w.err = w.o.Flush(ctx, w.s); w.err != nil {
			return
		}
	}
}

// TestOutboxSurvivesServerKills: four clients append through their own
// durable outboxes while a real server process is SIGKILLed and restarted
// on the same port and data directory, 30 times; each kill comes
// after the killer has seen an ack since the last restart, plus a random
// delay of up to 40ms. Invariants, checked at the end against the log:
//   - every valid op enqueued is in the log exactly once, and nothing else
//     is (no op twice, no op lost, no rejected op);
//   - each client's ops are in the log in its enqueue order;
//   - each outbox has nothing pending, records each valid op as done at
//     the cursor the log holds it at, and lists exactly the invalid ops
//     as failed (reason invalid).
func TestOutboxSurvivesServerKills(t *testing.T) {
	const writers, rounds = 4, 30
	start := time.Now()
	data, addr := t.TempDir(), obFreeAddr(t)
	srv := obStartAt(t, data, addr)
	owner := createShare(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	progress := make(chan struct{}, 1)
	ws := obStartWriters(t, writers, srv.URL, owner, progress)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() { defer wg.Done(); w.run(ctx, stop) }()
	}
	for r := 0; r < rounds; r++ {
		obAwaitProgress(t, progress, r)
		time.Sleep(rand.N(40 * time.Millisecond)) // varies when the kill lands; not a synchronisation
		srv.Kill()
		srv = obStartAt(t, data, addr)
	}
	close(stop)
	wg.Wait()
	obCheckKillLoop(t, ws, readAll(t, srv.URL, owner))
	t.Logf("%d SIGKILL/restart rounds in %s", rounds, time.Since(start).Round(time.Millisecond))
}

func obStartWriters(t *testing.T, n int, url, token string, progress chan struct{}) []*obWriter {
	ws := make([]*obWriter, n)
	for i := range ws {
		o, err := client.OpenOutbox(filepath.Join(t.TempDir(), "outbox.db"), client.OutboxOptions{
			MaxBatchOps: 4, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
			OnAck: func(string, sharevat.Ack) {
				select {
				case progress <- struct{}{}:
				default:
				}
			},
		})
		require.NoError(t, err)
		t.Cleanup(func() { o.Close() })
		s := client.NewRedeemer(url, token, &client.RedeemerOptions{MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
		t.Cleanup(s.Close)
		ws[i] = &obWriter{name: fmt.Sprintf("w%d", i), o: o, s: s}
	}
	return ws
}

// obAwaitProgress waits for an ack recorded after the last restart.
func obAwaitProgress(t *testing.T, progress chan struct{}, round int) {
	t.Helper()
	select {
	case <-progress: // an ack from before the restart
	default:
	}
	select {
	case <-progress:
	case <-time.After(60 * time.Second):
		t.Fatalf("round %d: no client made progress after the restart", round)
	}
}

func obCheckKillLoop(t *testing.T, ws []*obWriter, log []sharevat.Entry) {
	t.Helper()
	at := map[string]sharevat.Cursor{}
	for _, e := range log {
		_, dup := at[e.OpID]
		require.False(t, dup, "op %s is in the log twice", e.OpID)
		at[e.OpID] = e.Cursor
	}
	total, bad, dups := 0, 0, 0
	for _, w := range ws {
		require.NoError(t, w.err, "writer %s", w.name)
		total, bad = total+len(w.good), bad+len(w.bad)
		dups += obCheckWriter(t, w, log, at)
	}
	assert.Len(t, log, total, "the log holds exactly the valid ops enqueued")
	t.Logf("%d writers enqueued %d valid ops (+%d rejected); the log holds each once, in each writer's order; %d ops were acked duplicate (resent after a lost ack)",
		len(ws), total, bad, dups)
}

// obCheckWriter checks one writer's invariants and returns how many of its
// ops were acked as duplicates (resent after a lost ack).
func obCheckWriter(t *testing.T, w *obWriter, log []sharevat.Entry, at map[string]sharevat.Cursor) int {
	var order []string
	for _, e := range log {
		if len(e.OpID) > len(w.name) && e.OpID[:len(w.name)+1] == w.name+"-" {
			order = append(order, e.OpID)
		}
	}
	assert.Equal(t, w.good, order, "writer %s: its ops, each once, in enqueue order", w.name)
	res, err := w.o.Results(w.good...)
	require.NoError(t, err)
	dups := 0
	for _, r := range res {
		assert.Equal(t, client.OpDone, r.State, r.OpID)
		assert.Equal(t, at[r.OpID], r.Cursor, "%s acked at its log cursor", r.OpID)
		if r.Status == sharevat.StatusDuplicate {
			dups++
		}
	}
	st, err := w.o.Status()
	require.NoError(t, err)
	assert.Zero(t, st.Pending, "writer %s", w.name)
	var failed []string
	for _, f := range st.Failed {
		failed = append(failed, f.OpID)
		assert.Equal(t, sharevat.ReasonInvalid, f.Reason)
	}
	assert.Equal(t, w.bad, failed, "writer %s: exactly the invalid ops failed", w.name)
	return dups
}

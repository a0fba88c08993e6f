package main_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"
)

const (
	obRuns      = 20
	obOpsPerRun = 40
	// obNoExitSleep stops the race runtime's 1s sleep at exit, which would
	// otherwise dominate every CLI process and leave kills landing there.
	obNoExitSleep = "GORACE=atexit_sleep_ms=0"
)

// obBody is the body of every op of the client-kill test: which run and
// which op of it, so ops without op ids can be recognised in the log.
type obBody struct {
	Run int `json:"run"`
	N   int `json:"n"`
}

// obInput is run r's JSON Lines input: obOpsPerRun events, with op ids
// when withIDs, and, when bad, an op the server rejects (a dependency
// never sent) in the middle.
func obInput(r int, withIDs, bad bool) string {
	var b strings.Builder
	for i := 0; i < obOpsPerRun; i++ {
		if bad && i == obOpsPerRun/2 {
			fmt.Fprintf(&b, `{"op_id":"r%d-bad","kind":"event","depends_on":["r%d-never"],"body":{"run":%d,"n":-1}}`+"\n", r, r, r)
		}
		id := ""
		if withIDs {
			id = fmt.Sprintf(`"op_id":"r%d-%d",`, r, i)
		}
		fmt.Fprintf(&b, `{%s"kind":"event","body":{"run":%d,"n":%d}}`+"\n", id, r, i)
	}
	return b.String()
}

// delay picks when to kill: uniformly over 1.25 times the length of a
// whole run (measured), so kills land before, during and after the
// enqueue and the flush.
func (k *obKills) delay() time.Duration {
	return rand.N(k.window + k.window/4 + time.Millisecond)
}

// obKills counts how the kills landed.
type obKills struct {
	outbox                   string        // the token's outbox file
	window                   time.Duration // how long a whole append run takes
	killed, midFlush, reruns int
	finished                 int
}

// add counts one kill: whether it landed before the process finished,
// and whether it left ops pending in the outbox (killed mid-flush).
func (k *obKills) add(t *testing.T, o obOutcome) {
	t.Helper()
	if !o.killed {
		k.finished++
		return
	}
	k.killed++
	if _, err := os.Stat(k.outbox); err != nil {
		return // killed before it created the outbox
	}
	ob, err := client.OpenOutbox(k.outbox, client.OutboxOptions{})
	require.NoError(t, err, "the killed process released the outbox")
	defer ob.Close()
	st, err := ob.Status()
	require.NoError(t, err)
	if st.Pending > 0 {
		k.midFlush++
	}
}

// TestAppendSurvivesClientKills: real `sharevat append` processes, with
// a state directory, are SIGKILLed at random moments (0–20ms or 0–300ms
// after they start: before, during or after the enqueue and the flush) and the work
// is then completed the documented way: runs whose ops have op ids are
// simply run again (1–3 killed attempts, then one to completion, which
// must exit 0, or 4 for the run holding an invalid op); runs without op
// ids get one killed attempt, then `sharevat flush` (0–1 killed, then one
// to completion), and only if none of the run's ops reached the log is
// the append run again. Invariants:
//   - a run's ops reach the log all or none after a flush (the enqueue is
//     atomic and flush sends everything stored);
//   - at the end every op of every run is in the log exactly once, each
//     run's ops in input order and the runs in order; the invalid ops
//     are not in the log.
func TestAppendSurvivesClientKills(t *testing.T) {
	start := time.Now()
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state, obNoExitSleep}
	tok, err := sturdyref.Parse(owner)
	require.NoError(t, err)
	k := obKills{outbox: filepath.Join(state, "outbox-"+string(tok.GrantID)+".db")}
	k.window = obTimeRun(t, env)
	for r := 1; r < obRuns; r++ {
		if r%2 == 0 {
			obRunWithIDs(t, env, r, r%4 == 0, &k)
		} else {
			obRunWithoutIDs(t, env, srv.URL, owner, r, &k)
		}
	}
	log := readAll(t, srv.URL, owner)
	obCheckRuns(t, log)
	t.Logf("%d runs, %d ops in the log; a run takes %s; %d processes SIGKILLed (%d leaving ops pending), %d finished before their kill; %d runs appended again; %s",
		obRuns, len(log), k.window.Round(time.Millisecond), k.killed, k.midFlush, k.finished, k.reruns, time.Since(start).Round(time.Millisecond))
}

// obTimeRun runs run 0 (op ids, no kill) to completion and returns how
// long it took.
func obTimeRun(t *testing.T, env []string) time.Duration {
	t.Helper()
	start := time.Now()
	_, stderr, code := cli(t, obInput(0, true, false), env, "append", "--batch", "2")
	require.Equal(t, 0, code, stderr)
	return time.Since(start)
}

func obRunWithIDs(t *testing.T, env []string, r int, bad bool, k *obKills) {
	t.Helper()
	in := obInput(r, true, bad)
	for range 1 + rand.IntN(3) {
		k.add(t, obKillAfter(t, in, env, k.delay(), "append", "--batch", "2"))
	}
	_, stderr, code := cli(t, in, env, "append", "--batch", "2")
	want := 0
	if bad {
		want = 4
	}
	require.Equal(t, want, code, "run %d: re-running completes it: %s", r, stderr)
}

func obRunWithoutIDs(t *testing.T, env []string, url, token string, r int, k *obKills) {
	t.Helper()
	in := obInput(r, false, false)
	k.add(t, obKillAfter(t, in, env, k.delay(), "append", "--batch", "2"))
	for range rand.IntN(2) {
		k.add(t, obKillAfter(t, "", env, k.delay(), "flush"))
	}
	_, stderr, code := cli(t, "", env, "flush")
	require.Equal(t, 0, code, "run %d: flush: %s", r, stderr)
	switch n := obCount(t, readAll(t, url, token), r); n {
	case obOpsPerRun:
	case 0: // killed before its enqueue committed: nothing was stored
		k.reruns++
		_, stderr, code = cli(t, in, env, "append", "--batch", "2")
		require.Equal(t, 0, code, "run %d: append again: %s", r, stderr)
	default:
		t.Fatalf("run %d: %d of %d ops in the log after flush: part of a run was lost", r, n, obOpsPerRun)
	}
}

func obDecode(t *testing.T, e sharevat.Entry) obBody {
	var b obBody
	require.NoError(t, json.Unmarshal(e.Body, &b), "op %s", e.OpID)
	return b
}

// obCount counts run r's ops in the log.
func obCount(t *testing.T, log []sharevat.Entry, r int) int {
	n := 0
	for _, e := range log {
		if obDecode(t, e).Run == r {
			n++
		}
	}
	return n
}

// obCheckRuns checks that the log is exactly runs 0…obRuns-1, each with
// its ops 0…obOpsPerRun-1, in order, once.
func obCheckRuns(t *testing.T, log []sharevat.Entry) {
	t.Helper()
	var got, want []obBody
	for _, e := range log {
		got = append(got, obDecode(t, e))
		assert.False(t, strings.HasSuffix(e.OpID, "-bad"), "a rejected op is not in the log: %s", e.OpID)
	}
	for r := 0; r < obRuns; r++ {
		for i := 0; i < obOpsPerRun; i++ {
			want = append(want, obBody{Run: r, N: i})
		}
	}
	assert.Equal(t, want, got, "every op once, runs and ops in order")
}

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// obBigOps returns n ops of 5 KiB bodies, op ids prefix-0…: enough bytes
// that the outbox, once flushed, is mostly free pages and is compacted
// (renamed over) by the process that flushed it.
func obBigOps(prefix string, n int) (string, []string) {
	pad := strings.Repeat("x", 5<<10)
	var b strings.Builder
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		fmt.Fprintf(&b, `{"op_id":%q,"kind":"event","body":{"pad":%q}}`+"\n", ids[i], pad)
	}
	return b.String(), ids
}

// obHolder is a sharevat process that holds an outbox while the test
// starts a second one.
type obHolder struct {
	cmd  *exec.Cmd
	held chan struct{} // closed at its first stderr line: it holds the outbox
	done chan struct{} // closed once it has exited

	mu     sync.Mutex
	stderr strings.Builder
	stdout strings.Builder
}

// obStartHolder runs the binary with --progress, so that it reports on
// stderr once it holds the outbox.
func obStartHolder(t *testing.T, stdin string, env []string, args ...string) *obHolder {
	t.Helper()
	h := &obHolder{held: make(chan struct{}), done: make(chan struct{})}
	h.cmd = exec.Command(binary, append(args, "--progress")...)
	h.cmd.Env = append(os.Environ(), env...)
	h.cmd.Stdin = strings.NewReader(stdin)
	h.cmd.Stdout = &h.stdout
	pipe, err := h.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, h.cmd.Start())
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(pipe)
		once := sync.Once{}
		for sc.Scan() {
			once.Do(func() { close(h.held) })
			h.mu.Lock()
			h.stderr.WriteString(sc.Text() + "\n")
			h.mu.Unlock()
		}
		h.cmd.Wait()
		once.Do(func() { close(h.held) })
	}()
	return h
}

// wait returns the holder's exit code and its output.
func (h *obHolder) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(3 * time.Minute):
		h.cmd.Process.Kill()
		<-h.done
		t.Fatal("the holder hangs")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cmd.ProcessState.ExitCode(), h.stdout.String() + h.stderr.String()
}

// running reports whether the holder has not exited yet.
func (h *obHolder) running() bool {
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

// TestOutboxSecondProcessWaits: a second sharevat
// process on the same outbox, started while the first holds it (flushing
// 256 ops of 5 KiB, then compacting the file, which renames a new file
// over it), waits --lock-wait and then goes on; it never calls the
// healthy outbox damaged. obWaitRuns runs each of append/flush,
// append/append and flush/`outbox show`, each with a fresh outbox (the three scenarios
// run at once, each on outboxes of its own). The 256 big ops of
// a scenario are the same in each of its runs (the share would otherwise
// grow by 78 MB): every run's first process reports all 256 acked
// (applied or duplicate), and at the end the share holds every op,
// including the second append's own ops (new in each run), exactly once.
// Before the fix, the waiter checked the old file's structure
// against the new file's size and failed with "the outbox file … is
// damaged: … cut short?; restore it from a backup".
//
// Why obWaitRuns is 4 (it was 20, which made this one test 68 s of the
// package's CI time): with the fix undone (boltutil's heldFile back to
// stat-ing the path), every run of both append scenarios failed, 16 of
// 16 (8 runs each), and the second process started while the first held
// the outbox in every run (60 of 60 at 20 runs). Even at the lowest
// per-run failure rate 16 of 16 allows (about 0.8), the 8 append runs
// all miss the bug with odds under 1 in 100,000. The flush/`outbox
// show` runs did not fail with the fix undone (0 of 8); they stay, fewer
// too, as the check that show also waits and never says damaged.
func TestOutboxSecondProcessWaits(t *testing.T) {
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, obNoExitSleep}
	var mu sync.Mutex
	var want []string
	overlapped := 0
	t.Run("scenarios", func(t *testing.T) { // the three at once, each its own outboxes
		for _, sc := range []string{"append/flush", "append/append", "flush/outbox"} {
			t.Run(sc, func(t *testing.T) {
				t.Parallel()
				ids, n := obScenario(t, env, sc)
				mu.Lock()
				defer mu.Unlock()
				want, overlapped = append(want, ids...), overlapped+n
			})
		}
	})
	if t.Failed() {
		return
	}
	t.Logf("the second process started while the first held the outbox in %d of %d runs", overlapped, 3*obWaitRuns)
	assert.Positive(t, overlapped)
	assertOpsOnce(t, env, want)
}

// obWaitRuns is how many runs each scenario makes (see
// TestOutboxSecondProcessWaits for why 4 keep its power).
const obWaitRuns = 4

// obScenario runs scenario sc obWaitRuns times, each with a fresh outbox, and
// returns the op ids it sent and in how many runs the second process
// started while the first held the outbox.
func obScenario(t *testing.T, env []string, sc string) ([]string, int) {
	big, ids := obBigOps(sc, 256)
	overlapped := 0
	for run := range obWaitRuns {
		more, held := obRun(t, env, sc, run, big)
		ids = append(ids, more...)
		if held {
			overlapped++
		}
	}
	return ids, overlapped
}

// obRun is one run of scenario sc: the first process holds a fresh
// outbox while the second starts. It returns the second's own op ids
// (append/append) and whether it started while the first held the
// outbox.
func obRun(t *testing.T, env []string, sc string, run int, big string) ([]string, bool) {
	env = append(env[:len(env):len(env)], "SHAREVAT_STATE="+t.TempDir())
	ops, first := big, []string{"append", "--lock-wait", "2m", "--json"}
	if sc == "flush/outbox" {
		down := append(env[:len(env):len(env)], "SHAREVAT_URL=ws://127.0.0.1:1/rpc")
		// Only fills the outbox. --timeout covers storing the 1.3 MB too:
		// at 200ms a loaded machine ran out during the store (the bare
		// "context deadline exceeded", 2 of 3 runs of the 20-run version).
		_, stderr, code := cliIn(t, ops, down, "append", "--timeout", "1s", "--quiet")
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, "256 op(s) stay pending")
		first, ops = []string{"flush", "--lock-wait", "2m", "--json"}, ""
	}
	h := obStartHolder(t, ops, env, first...)
	<-h.held
	held := h.running()
	var moreIDs []string
	var out, stderr string
	var code int
	switch sc {
	case "append/flush":
		out, stderr, code = cli(t, "", env, "flush", "--lock-wait", "2m")
	case "append/append":
		var more string
		more, moreIDs = obBigOps(fmt.Sprintf("%s-%d-second", sc, run), 2)
		out, stderr, code = cli(t, more, env, "append", "--lock-wait", "2m")
	case "flush/outbox":
		out, stderr, code = cli(t, "", env, "outbox", "show", "--lock-wait", "2m")
	}
	hcode, hout := h.wait(t)
	require.Equal(t, 0, hcode, "%s run %d: first: %s", sc, run, hout)
	var sum struct{ Applied, Duplicates, Rejected, Pending int }
	require.NoError(t, json.Unmarshal([]byte(h.stdout.String()), &sum), hout)
	require.Equal(t, 256, sum.Applied+sum.Duplicates, "%s run %d: every op acked: %s", sc, run, hout)
	require.Equal(t, 0, code, "%s run %d: second: %s %s", sc, run, out, stderr)
	require.NotContains(t, stderr+hout, "damaged", "%s run %d", sc, run)
	return moreIDs, held
}

// assertOpsOnce reads the whole share and checks it holds exactly the
// ops want, each once.
func assertOpsOnce(t *testing.T, env []string, want []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "read", "--from", "0")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	seen := map[string]int{}
	dec := json.NewDecoder(out)
	for {
		var e struct {
			OpID string `json:"op_id"`
		}
		if err := dec.Decode(&e); err != nil {
			break
		}
		seen[e.OpID]++
	}
	require.NoError(t, cmd.Wait())
	for _, id := range want {
		if !assert.Equal(t, 1, seen[id], "op %s", id) {
			break
		}
	}
	assert.Len(t, seen, len(want), "no op the test did not send")
}

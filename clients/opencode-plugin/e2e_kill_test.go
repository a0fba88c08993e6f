package opencodeplugin_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// kills is how many times TestPluginSurvivesSIGKILLMidTurn kills opencode
// (SHAREVAT_OC_KILLS, default 10; each kill costs one opencode start).
func kills(t *testing.T) int {
	n := 10
	if s := os.Getenv("SHAREVAT_OC_KILLS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "SHAREVAT_OC_KILLS")
	}
	return n
}

// TestPluginSurvivesSIGKILLMidTurn: opencode is SIGKILLed (its whole
// process group) at a random point while the mock model streams an
// answer, and restarted with --continue each time; after a last clean run
// and the flush command, the vat holds every item of `opencode export` at
// its final version and no op id twice.
func TestPluginSurvivesSIGKILLMidTurn(t *testing.T) {
	node := needNode(t)
	first := opencodetest.NewModel(t, opencodetest.Text("Started."))
	v := newVatWithPlugin(t, node, first, nil)
	res, id := v.root.Prompt("start please")
	require.NoError(t, res.Err, res.String())

	for i := 0; i < kills(t); i++ {
		// Every other turn runs a tool first (tool, step and patch parts
		// exist when the kill comes); the others are killed in their
		// first answer (one model step less: each step is seconds of
		// opencode's work on a loaded machine).
		turns := []opencodetest.Turn{opencodetest.Stalled("A partial answer that")}
		if i%2 == 0 {
			turns = append([]opencodetest.Turn{opencodetest.Bash(fmt.Sprintf("echo %d > k%d.txt", i, i))}, turns...)
		}
		m := opencodetest.NewModel(t, turns...)
		v.useModel(m)
		ctx, cancel := context.WithCancel(context.Background())
		killed := make(chan time.Time, 1)
		go func() {
			select {
			case <-m.StallStarted():
				time.Sleep(time.Duration(rand.IntN(800)) * time.Millisecond) // a random point mid-turn, not a wait for a result
			case <-ctx.Done():
			}
			killed <- time.Now()
			cancel() // SIGKILL to opencode's process group
		}()
		start := time.Now()
		res := v.root.RunContext(ctx, "run", "--format", "json", "--continue", fmt.Sprintf("kill turn %d", i+1))
		cancel()
		require.Error(t, res.Err, "run %d was to be killed: %s", i+1, res.String())
		require.True(t, strings.Contains(res.Err.Error(), "killed"), "run %d: %v", i+1, res.Err)
		m.Close()
		at := <-killed
		t.Logf("kill %d: SIGKILL %s after the start, reaped %s later", i+1, at.Sub(start).Round(time.Millisecond), time.Since(at).Round(time.Millisecond))
	}
	v.useModel(opencodetest.NewModel(t, opencodetest.Text("All done.")))
	res, sid := v.root.Prompt("finish please", "--continue")
	require.NoError(t, res.Err, res.String())
	require.Equal(t, id, sid)
	t.Logf("flush: %s", v.flush(t))
	out, _, err := v.compare(t, id)
	require.NoError(t, err, "after %d SIGKILLs the vat lacks items of opencode export: %s", kills(t), out)
	t.Logf("plugin after %d SIGKILLs: %s", kills(t), strings.TrimSpace(out))
}

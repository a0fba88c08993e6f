package opencodeplugin_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// TestPluginCatchesUpAfterTheVatWasDown: the vat is SIGKILLed after a
// first run; a second run (--continue, a tool call and an answer) happens
// with the vat down, so its updates stay in the outbox; the vat restarts
// on the same address and data, and a third run's start sends them: the
// vat then holds every item of `opencode export` at its final version and
// no op id twice.
func TestPluginCatchesUpAfterTheVatWasDown(t *testing.T) {
	node := needNode(t)
	m := opencodetest.NewModel(t,
		opencodetest.Text("First."),
		opencodetest.Bash("echo down > down.txt"), opencodetest.Text("Wrote it while the vat was down."),
		opencodetest.Text("Third."))
	srv := startOwnVat(t) // this test kills its vat
	creation, err := mintCreationToken(server.Binary(t), srv.URL, srv.Data, t.TempDir())
	require.NoError(t, err)
	v := newProjectWithPlugin(t, node, m, nil, srv.URL, creation)
	res, id := v.root.Prompt("first please")
	require.NoError(t, res.Err, res.String())

	enqueued := func() int { // enqueue frames in the session's outbox file
		b, err := os.ReadFile(filepath.Join(v.outboxDir(), id, "outbox"))
		require.NoError(t, err)
		return bytes.Count(b, []byte(`{"t":"enq"`))
	}
	before := enqueued()
	srv.Kill()
	<-srv.Done()
	res, _ = v.root.Prompt("second please, vat down", "--continue")
	require.NoError(t, res.Err, res.String())
	require.Greater(t, enqueued(), before, "the run with the vat down left its updates in the outbox")
	t.Logf("enqueued with the vat down: %d enqueue frames", enqueued()-before)

	u, err := url.Parse(v.base)
	require.NoError(t, err)
	_, err = proctest.Start(t, server.Binary(t), nil, "serve", "--listen", u.Host, "--data", srv.Data)
	require.NoError(t, err)
	res, _ = v.root.Prompt("third please", "--continue")
	require.NoError(t, res.Err, res.String())
	t.Logf("flush: %s", v.flush(t))
	out, _, err := v.compare(t, id)
	require.NoError(t, err, "after the vat was down the vat lacks items of opencode export: %s", out)
	t.Logf("plugin after the vat was down: %s", strings.TrimSpace(out))
}

package main_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// obDamageBody is the body of op i of TestFlushSendsAroundDamagedRecords.
func obDamageBody(i int) string {
	return fmt.Sprintf(`{"text":"the body of op %d, long enough to take sixty-four random bytes in its middle"}`, i)
}

// obDamageAll applies hit at every copy of pat in b (bbolt leaves old
// copies of a page in free pages) and reports how many there were.
func obDamageAll(b, pat []byte, hit func(at int)) int {
	n := 0
	for at := bytes.Index(b, pat); at >= 0; at = bytes.Index(b, pat) {
		hit(at)
		n++
	}
	return n
}

// TestFlushSendsAroundDamagedRecords: 20 ops wait in an outbox (the
// server was down); then one op's body gets a flipped byte, another's op
// id a flipped byte, a third's record 64 random bytes. flush sends the
// 17 healthy ops, each with its own body, and none of the damaged ones,
// then exits 1 naming the outbox, the count and the way out; `outbox
// show` names the three (op id as stored, enqueue seq); `outbox discard
// --damaged` drops exactly them; the outbox is then clean and the three
// ops, appended again, arrive whole. Before format 2, flush sent the
// flipped body as it was and the flipped id as another op. The server
// and the CLI run in-process: the subject is the outbox and what the
// commands say, not the binary.
func TestFlushSendsAroundDamagedRecords(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state, obNoExitSleep}
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, `{"op_id":"d%d","kind":"event","body":%s}`+"\n", i, obDamageBody(i))
	}
	down := append(env[:len(env):len(env)], "SHAREVAT_URL=ws://127.0.0.1:1/rpc")
	_, stderr, code := cliIn(t, in.String(), down, "append", "--timeout", "200ms", "--quiet")
	require.Equal(t, 1, code, stderr)

	path := obOutboxPath(t, state, owner)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b64 := func(i int) []byte { return []byte(base64.StdEncoding.EncodeToString([]byte(obDamageBody(i)))) }
	require.Positive(t, obDamageAll(b, b64(7), func(at int) { flipCase(b[at+20:]) }))
	require.Positive(t, obDamageAll(b, []byte(`"id":"d11"`), func(at int) { b[at+6] = 'e' })) // "d11" reads "e11"
	noise := make([]byte, 64)
	r := rand.New(rand.NewPCG(20, 2))
	for i := range noise {
		noise[i] = byte(r.UintN(256))
	}
	require.Positive(t, obDamageAll(b, b64(15), func(at int) { copy(b[at+10:], noise) }))
	require.NoError(t, os.WriteFile(path, b, 0o600))

	out, stderr, code := cliIn(t, "", env, "flush")
	assert.Equal(t, 1, code, "stdout %s stderr %s", out, stderr)
	assert.Contains(t, out, "applied 17,")
	assert.Contains(t, stderr, "3 damaged record(s) in the outbox "+path+" were not sent")
	assert.Contains(t, stderr, "sharevat outbox discard --damaged")
	sent := obReadShare(t, env)
	require.Len(t, sent, 17)
	for id, body := range sent {
		var i int
		_, err := fmt.Sscanf(id, "d%d", &i)
		require.NoError(t, err, "op %s", id)
		assert.NotContains(t, []int{7, 11, 15}, i)
		assert.JSONEq(t, obDamageBody(i), body, "op %s carries its own body", id)
	}

	out, stderr, code = cliIn(t, "", env, "outbox", "show", "--json")
	require.Equal(t, 0, code, stderr)
	var show struct {
		Outbox struct{ Pending, Damaged int }
		Ops    []struct {
			OpID   string `json:"op_id"`
			State  string
			Record uint64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &show))
	assert.Equal(t, 0, show.Outbox.Pending)
	assert.Equal(t, 3, show.Outbox.Damaged)
	require.Len(t, show.Ops, 3)
	for i, want := range []struct {
		id  string
		seq uint64
	}{{"d7", 8}, {"e11", 12}, {"", 16}} {
		assert.Equal(t, "damaged", show.Ops[i].State)
		assert.Equal(t, want.seq, show.Ops[i].Record)
		if want.id != "" {
			assert.Equal(t, want.id, show.Ops[i].OpID, "the op id as stored")
		}
	}

	_, stderr, code = cliIn(t, "", env, "outbox", "discard", "--damaged", "--yes")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "discarded 3 damaged record(s) from "+path)
	out, stderr, code = cliIn(t, "", env, "outbox", "show", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"damaged":0`)
	assert.Contains(t, out, `"ops":[]`)

	var again strings.Builder
	for _, i := range []int{7, 11, 15} {
		fmt.Fprintf(&again, `{"op_id":"d%d","kind":"event","body":%s}`+"\n", i, obDamageBody(i))
	}
	out, stderr, code = cliIn(t, again.String(), env, "append")
	require.Equal(t, 0, code, "stdout %s stderr %s", out, stderr)
	assert.Contains(t, out, "applied 3,")
	sent = obReadShare(t, env)
	require.Len(t, sent, 20)
	for i := range 20 {
		assert.JSONEq(t, obDamageBody(i), sent[fmt.Sprint("d", i)])
	}
}

// flipCase swaps the case of the first letter in b: base64 stays valid,
// so the body still decodes, to other bytes.
func flipCase(b []byte) {
	for i, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b[i] ^= 0x20
			return
		}
	}
}

// obReadShare reads the whole share: op id → body.
func obReadShare(t *testing.T, env []string) map[string]string {
	t.Helper()
	out, stderr, code := cliIn(t, "", env, "read", "--from", "0")
	require.Equal(t, 0, code, stderr)
	ops := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			OpID string          `json:"op_id"`
			Body json.RawMessage `json:"body"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		_, dup := ops[e.OpID]
		require.False(t, dup, "op %s twice", e.OpID)
		ops[e.OpID] = string(e.Body)
	}
	return ops
}

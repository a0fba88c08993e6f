package vat_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/vat"
)

// TestShareBytesQuotaHoldsOverRPC (issue 32): a share made with a
// creation token of 200 KiB per share holds at most 200 KiB of ops
// whatever door the writer uses: appends of its owner token straight
// over /rpc (as `sharevat append` does) are refused tooLarge past it,
// with nothing of the refused batch applied, and so are a fork's, which
// takes its parent's limit. Before: only the opencode door checked it,
// and 600 KB went in over /rpc.
func TestShareBytesQuotaHoldsOverRPC(t *testing.T) { onEachStore(t, testShareBytesQuotaHoldsOverRPC) }

func testShareBytesQuotaHoldsOverRPC(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	const limit = 200 << 10
	ct, err := tv.Vat.MintCreateToken(bg, tv.Admin, "test", "200 KiB", vat.CreateQuota{BytesPerShare: limit})
	require.NoError(t, err)
	creator, err := tv.MustDial(t).RedeemAdmin(bg, ct.Token)
	require.NoError(t, err)
	made, owner, err := creator.CreateShare(bg, sharevat.MetaPatch{})
	require.NoError(t, err)
	made.Release()

	sh := tv.MustRestore(t, owner.Token) // a writer that never saw the door
	body := `"` + strings.Repeat("x", 10_000) + `"`
	refused := appendUntilRefused(t, sh, "op", body, 60) // 600 KB offered
	isCode(t, refused, sharevat.ErrTooLarge, "an append past the share's quota")
	held := logBytes(t, sh)
	assert.LessOrEqual(t, held, int64(limit), "the share holds at most its quota")
	assert.Greater(t, held, int64(limit-60_000), "and was filled up to it")

	fork, _, err := sh.Fork(bg, 0, sharevat.MetaPatch{})
	require.NoError(t, err)
	t.Cleanup(fork.Release)
	isCode(t, appendUntilRefused(t, fork, "f", body, 60), sharevat.ErrTooLarge, "a fork keeps its parent's quota")
	assert.LessOrEqual(t, logBytes(t, fork), int64(limit))
}

// appendUntilRefused appends n ops of body in batches of 5 until one is
// refused, and returns the refusal (nil if none was).
func appendUntilRefused(t *testing.T, sh *client.Share, prefix, body string, n int) error {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err)
	defer app.Release()
	for i := 0; i < n; i += 5 {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("%s-b%d", prefix, i), Epoch: sh.Access.Epoch}
		for j := i; j < i+5; j++ {
			b.Ops = append(b.Ops, op(fmt.Sprintf("%s-%d", prefix, j), "event", "", body))
		}
		if _, err := app.Append(bg, b); err != nil {
			return err
		}
	}
	return nil
}

// logBytes sums the Op.Size of every op sh's log holds.
func logBytes(t *testing.T, sh *client.Share) int64 {
	t.Helper()
	n := int64(0)
	for _, e := range readAllOps(t, sh) {
		o := sharevat.Op{OpID: e.OpID, Kind: e.Kind, Key: e.Key, Body: e.Body}
		n += int64(o.Size())
	}
	return n
}

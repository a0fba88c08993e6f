package apply_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// memTx is an apply.Tx over maps: the log, and the op-id index with each
// op's cursor and digest. It is the engine's own view of storage, not a
// mock: Apply reads back what it wrote.
type memTx struct {
	epoch sharevat.Epoch
	log   []sharevat.Entry
	index map[string]int // op id → position in log
}

func newTx() *memTx { return &memTx{epoch: 1, index: make(map[string]int)} }

func (m *memTx) Epoch() sharevat.Epoch { return m.epoch }
func (m *memTx) Head() sharevat.Cursor { return sharevat.Cursor(len(m.log)) }
func (m *memTx) Lookup(id string) (sharevat.IndexedOp, bool, error) {
	i, ok := m.index[id]
	if !ok {
		return sharevat.IndexedOp{}, false, nil
	}
	return sharevat.IndexedOp{OpID: id, Cursor: m.log[i].Cursor, Digest: m.log[i].Digest}, true, nil
}
func (m *memTx) Put(e *sharevat.Entry) error {
	m.index[e.OpID] = len(m.log)
	m.log = append(m.log, *e)
	return nil
}

// A GitHub token of the right shape, plainly fake, assembled so the
// source holds no token-shaped string.
var fakeToken = "ghp" + "_FAKEfake0123456789FAKEfake0123456789"

func secretOp(id string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: "m1",
		Body: []byte(`{"text":"export GITHUB_TOKEN=` + fakeToken + ` and go"}`)}
}

func appendOps(t *testing.T, tx *memTx, pol sharevat.Privacy, ops ...sharevat.Op) sharevat.Ack {
	t.Helper()
	ack, err := apply.Prepare(&sharevat.Batch{BatchID: "b", Epoch: 1, Ops: ops}, sharevat.DefaultLimits(), pol).Apply(tx, time.Unix(0, 0))
	require.NoError(t, err)
	return ack
}

// TestGuardRedacts: under redact the body is stored with the secret
// replaced, the ack counts the replacement, and the stored digest is
// that of the stored content (store/bolt checks it on every read).
func TestGuardRedacts(t *testing.T) {
	tx := newTx()
	op := secretOp("a")
	ack := appendOps(t, tx, sharevat.PrivacyRedact, op)
	require.Equal(t, sharevat.StatusApplied, ack.Results[0].Status)
	assert.Equal(t, 1, ack.Redacted)
	e := tx.log[0]
	assert.Equal(t, `{"text":"export GITHUB_TOKEN=[REDACTED:github-pat] and go"}`, string(e.Body))
	assert.Equal(t, apply.Digest(&sharevat.Op{Kind: e.Kind, Key: e.Key, Body: e.Body}), e.Digest)
	assert.Contains(t, string(op.Body), fakeToken, "the caller's op is not changed")
}

// TestGuardRetryIsDuplicate: a retry of a redacted op is a duplicate at
// its cursor under every policy, and a redacted op counts no redaction
// when it comes back; an op stored as sent (policy off) is a duplicate
// under every policy too.
func TestGuardRetryIsDuplicate(t *testing.T) {
	for _, first := range []sharevat.Privacy{sharevat.PrivacyRedact, sharevat.PrivacyOff} {
		tx := newTx()
		appendOps(t, tx, first, secretOp("a"))
		for _, pol := range []sharevat.Privacy{sharevat.PrivacyRedact, sharevat.PrivacyReject, sharevat.PrivacyOff} {
			ack := appendOps(t, tx, pol, secretOp("a"))
			assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status, "stored under %s, retried under %s", first, pol)
			assert.Equal(t, sharevat.Cursor(1), ack.Results[0].Cursor)
			assert.Equal(t, 0, ack.Redacted)
		}
	}
}

// TestGuardIDReused: an op id reused for other content is still
// idReused after a redaction; content that differs only inside the
// secret is the same once redacted, so it is a duplicate.
func TestGuardIDReused(t *testing.T) {
	tx := newTx()
	appendOps(t, tx, sharevat.PrivacyRedact, secretOp("a"))
	other := secretOp("a")
	other.Body = []byte(`{"text":"something else"}`)
	ack := appendOps(t, tx, sharevat.PrivacyRedact, other)
	assert.Equal(t, sharevat.ReasonIDReused, ack.Results[0].Reason)
	sameButSecret := secretOp("a")
	sameButSecret.Body = []byte(strings.Replace(string(sameButSecret.Body), "FAKEfake01", "FAKEfake99", 1))
	ack = appendOps(t, tx, sharevat.PrivacyRedact, sameButSecret)
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status)
}

// TestGuardRejects: under reject an op holding a secret is rejected
// with ReasonSecret and a message naming the rule, never the secret;
// nothing is stored, and the other ops of the batch are applied.
func TestGuardRejects(t *testing.T) {
	tx := newTx()
	clean := sharevat.Op{OpID: "b", Kind: sharevat.KindEvent, Body: []byte(`{"text":"no secret here"}`)}
	ack := appendOps(t, tx, sharevat.PrivacyReject, secretOp("a"), clean)
	r := ack.Results[0]
	assert.Equal(t, sharevat.StatusRejected, r.Status)
	assert.Equal(t, sharevat.ReasonSecret, r.Reason)
	assert.Equal(t, "body holds a secret-shaped string (github-pat); the share's privacy policy rejects such ops", r.Message)
	assert.NotContains(t, r.Message, "FAKE")
	assert.Equal(t, sharevat.StatusApplied, ack.Results[1].Status)
	require.Len(t, tx.log, 1)
	assert.Equal(t, "b", tx.log[0].OpID)
	assert.Equal(t, 0, ack.Redacted)
}

// TestGuardOff: under off the body is stored as sent.
func TestGuardOff(t *testing.T) {
	tx := newTx()
	op := secretOp("a")
	ack := appendOps(t, tx, sharevat.PrivacyOff, op)
	assert.Equal(t, sharevat.StatusApplied, ack.Results[0].Status)
	assert.Equal(t, 0, ack.Redacted)
	assert.Equal(t, string(op.Body), string(tx.log[0].Body))
	assert.Equal(t, apply.Digest(&op), tx.log[0].Digest)
}

// TestGuardCheckOrder: the guard is check 6: a duplicate, a stale
// epoch, a malformed body all answer first; only an op that passes
// every other check is rejected for a secret.
func TestGuardCheckOrder(t *testing.T) {
	tx := newTx()
	stale := &sharevat.Batch{BatchID: "b", Epoch: 2, Ops: []sharevat.Op{secretOp("a")}}
	ack, err := apply.Prepare(stale, sharevat.DefaultLimits(), sharevat.PrivacyReject).Apply(tx, time.Unix(0, 0))
	require.NoError(t, err)
	assert.Equal(t, sharevat.ReasonStaleEpoch, ack.Results[0].Reason)
	bad := secretOp("c")
	bad.Body = append(bad.Body, '}')
	ack = appendOps(t, tx, sharevat.PrivacyReject, bad)
	assert.Equal(t, sharevat.ReasonInvalid, ack.Results[0].Reason)
}

// TestGuardRedactedOverLimit: a body that redaction makes longer than
// the body limit is rejected tooLarge, so no stored body is over it.
func TestGuardRedactedOverLimit(t *testing.T) {
	tx := newTx()
	op := sharevat.Op{OpID: "a", Kind: sharevat.KindEvent, Body: []byte(`{"u":"postgres://app:Zq9Xw2Lp@db"}`)}
	lim := sharevat.DefaultLimits()
	lim.MaxBodyBytes = len(op.Body)
	ack, err := apply.Prepare(&sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{op}}, lim, sharevat.PrivacyRedact).Apply(tx, time.Unix(0, 0))
	require.NoError(t, err)
	assert.Equal(t, sharevat.ReasonTooLarge, ack.Results[0].Reason)
	assert.Empty(t, tx.log)
}

// TestGuardRejectsSecretIDs: an op whose op id, key or batch id holds a
// secret is rejected secret under redact and reject alike (an id cannot
// be redacted), with a message naming the field and the rule, never the
// secret; nothing of it is stored. Under off it is applied as sent.
func TestGuardRejectsSecretIDs(t *testing.T) {
	clean := func(id string) sharevat.Op {
		return sharevat.Op{OpID: id, Kind: sharevat.KindPart, Key: "p1", Body: []byte(`{"text":"hello"}`)}
	}
	inKey := clean("k")
	inKey.Key = "part/" + fakeToken
	for _, pol := range []sharevat.Privacy{sharevat.PrivacyRedact, sharevat.PrivacyReject} {
		for _, c := range []struct {
			name, batchID, what string
			op                  sharevat.Op
		}{
			{"op id", "b", "op id", clean("op-" + fakeToken)},
			{"key", "b", "key", inKey},
			{"batch id", "batch-" + fakeToken, "batch id", clean("c")},
		} {
			tx := newTx()
			b := &sharevat.Batch{BatchID: c.batchID, Epoch: 1, Ops: []sharevat.Op{c.op}}
			ack, err := apply.Prepare(b, sharevat.DefaultLimits(), pol).Apply(tx, time.Unix(0, 0))
			require.NoError(t, err)
			r := ack.Results[0]
			assert.Equal(t, sharevat.ReasonSecret, r.Reason, "%s under %s", c.name, pol)
			assert.Equal(t, c.what+" holds a secret-shaped string (github-pat); the share's privacy policy rejects such ops; ids are never redacted", r.Message)
			assert.Empty(t, tx.log, "%s under %s: nothing stored", c.name, pol)
		}
	}
	tx := newTx()
	ack := appendOps(t, tx, sharevat.PrivacyOff, clean("op-"+fakeToken))
	assert.Equal(t, sharevat.StatusApplied, ack.Results[0].Status, "under off")
}

package sharevat_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

func TestScopeParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sharevat.Scope
		str  string
	}{
		{"read", sharevat.ScopeRead, "read"},
		{"append,read", sharevat.ScopeRead | sharevat.ScopeAppend, "read,append"},
		{"read, append ,delegate", sharevat.ScopeRead | sharevat.ScopeAppend | sharevat.ScopeDelegate, "read,append,delegate"},
		{"owner", sharevat.ScopeOwner, "read,append,delegate,admin"},
	} {
		got, err := sharevat.ParseScope(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.str, got.String())
	}
	for _, bad := range []string{"", "write", "read,,append", "READ"} {
		_, err := sharevat.ParseScope(bad)
		assert.True(t, errors.Is(err, sharevat.ErrInvalid), "%q: got %v", bad, err)
	}
	assert.True(t, sharevat.ScopeRead.SubsetOf(sharevat.ScopeOwner))
	assert.False(t, sharevat.ScopeOwner.SubsetOf(sharevat.ScopeRead))
	assert.Equal(t, "none", sharevat.Scope(0).String())
}

func TestErrorCodesRoundTrip(t *testing.T) {
	for _, c := range sharevat.Codes {
		err := sharevat.Errorf(c, "something about %s", c)
		back := sharevat.ParseError(err.Error())
		require.NotNil(t, back, c)
		assert.Equal(t, c, back.Code)
		assert.Equal(t, err.Message, back.Message)
		wrapped := fmt.Errorf("layer: %w", err)
		assert.Equal(t, c, sharevat.ErrorCode(wrapped))
	}
	assert.True(t, errors.Is(sharevat.Errorf(sharevat.ERevoked, "x"), sharevat.ErrRevoked))
	assert.False(t, errors.Is(sharevat.Errorf(sharevat.ERevoked, "x"), sharevat.ErrInvalid))
	assert.Equal(t, sharevat.EInternal, sharevat.ErrorCode(errors.New("disk on fire")))
	assert.Equal(t, "internal error", sharevat.ErrorMessage(errors.New("disk on fire")), "internal details never leak")
	assert.Nil(t, sharevat.ParseError("something else"))
}

// TestIsCannotCheckToken: a vat's answer to a redeem its store could not
// decide is told apart after its trip over the wire, and from other
// unavailable answers.
func TestIsCannotCheckToken(t *testing.T) {
	wire := sharevat.ParseError(sharevat.ErrCannotCheckToken.Error())
	assert.True(t, sharevat.IsCannotCheckToken(fmt.Errorf("redeem: %w", wire)))
	assert.True(t, errors.Is(wire, sharevat.ErrUnavailable))
	assert.False(t, sharevat.IsCannotCheckToken(sharevat.Errorf(sharevat.EUnavailable, "connection lost")))
	assert.False(t, sharevat.IsCannotCheckToken(sharevat.ErrUnauthorized))
	assert.False(t, sharevat.IsCannotCheckToken(nil))
}

func TestLimitsValidate(t *testing.T) {
	require.NoError(t, sharevat.DefaultLimits().Validate())
	for name, mut := range map[string]func(*sharevat.Limits){
		"zero body":      func(l *sharevat.Limits) { l.MaxBodyBytes = 0 },
		"negative ops":   func(l *sharevat.Limits) { l.MaxOpsPerBatch = -1 },
		"absurd batch":   func(l *sharevat.Limits) { l.MaxBatchBytes = 1 << 40 },
		"body > batch":   func(l *sharevat.Limits) { l.MaxBodyBytes, l.MaxBatchBytes = 2<<20, 1<<20 },
		"absurd op id":   func(l *sharevat.Limits) { l.MaxOpIDLen = 1 << 20 },
		"zero deps list": func(l *sharevat.Limits) { l.MaxDependsOn = 0 },
	} {
		l := sharevat.DefaultLimits()
		mut(&l)
		assert.True(t, errors.Is(l.Validate(), sharevat.ErrInvalid), name)
	}
}

func TestOpAndBatchSize(t *testing.T) {
	op := sharevat.Op{OpID: "m1", Kind: "message", Key: "k", Body: []byte(`{}`), DependsOn: []string{"s1", "p"}, Seq: 9}
	assert.Equal(t, 2+7+1+2+2+1, op.Size(), "op id, kind, key, body and dependency ids count; seq does not")
	b := sharevat.Batch{BatchID: "b-1", Epoch: 3, Ops: []sharevat.Op{op, {OpID: "e", Kind: "event"}}}
	assert.Equal(t, 3+op.Size()+1+5, b.Size(), "the batch id and every op count; the epoch does not")
}

func TestMetaPatchApply(t *testing.T) {
	title := "t"
	m, err := sharevat.MetaPatch{Title: &title, Status: sharevat.StatusBusy}.Apply(sharevat.Meta{Version: "v"}, testNow)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Meta{Title: "t", Version: "v", Status: sharevat.StatusBusy, UpdatedAt: testNow}, m)
	_, err = sharevat.MetaPatch{Status: 9}.Apply(m, testNow)
	assert.True(t, errors.Is(err, sharevat.ErrInvalid))
}

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

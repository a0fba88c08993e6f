package pg_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
)

// TestCorrupt damages rows behind the store's back (as a bad disk, a
// bad restore or a hand edit would) and checks each is answered
// corrupt, naming the share and cursor, never served and never with
// the damaged content in the answer.
func TestCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name, damage string
		call         func(t *testing.T, st storeCalls) error
	}{
		{"body", "UPDATE log SET body = '{\"id\":\"SECRET\"}' WHERE cursor = 2", readAll},
		{"digest", "UPDATE log SET digest = sha256('x') WHERE cursor = 2", readAll},
		{"gap", "DELETE FROM log WHERE cursor = 2", readAll},
		{"index", "UPDATE ops SET cursor = 3 WHERE op_id = 'x-1'", readAll},
		{"index digest on retry", "UPDATE ops SET digest = sha256('x') WHERE op_id = 'x-1'", retry},
		{"state", "UPDATE state SET body = '{\"v\":\"SECRET\"}'", snapshot},
		{"fork", "UPDATE log SET body = '{\"id\":\"SECRET\"}' WHERE cursor = 2", fork},
		{"compact", "UPDATE log SET body = '{\"id\":\"SECRET\"}' WHERE cursor = 2", compact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := pgtest.DB(t)
			st := MustOpenDSN(t, dsn)
			createShare(t, st, "s")
			b := eventBatch("x", 3)
			b.Ops = append(b.Ops, sharevat.Op{OpID: "p", Seq: 3, Kind: sharevat.KindMessage, Key: "m", Body: []byte(`{"v":1}`)})
			_, err := appendTo(t, st, "s", b)
			require.NoError(t, err)
			_, err = mustConn(t, dsn).Exec(t.Context(), tc.damage)
			require.NoError(t, err)
			err = tc.call(t, storeCalls{st})
			require.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "err %v", err)
			msg := sharevat.ErrorMessage(err)
			assert.Contains(t, msg, "share s")
			assert.False(t, strings.Contains(msg, "SECRET"), "the answer %q shows stored content", msg)
		})
	}
}

// storeCalls wraps the store under test for the damage table.
type storeCalls struct{ st sharevat.Store }

func readAll(t *testing.T, c storeCalls) error {
	_, _, err := c.st.Read(t.Context(), "s", 0, 10)
	return err
}

func retry(t *testing.T, c storeCalls) error {
	_, err := c.st.Append(t.Context(), sharevat.AppendRequest{Share: "s", Batch: eventBatch("x", 2), Limits: sharevat.DefaultLimits()})
	return err
}

func snapshot(t *testing.T, c storeCalls) error {
	_, _, err := c.st.Snapshot(t.Context(), "s")
	return err
}

func fork(t *testing.T, c storeCalls) error {
	s := sharevat.Share{ID: "f", Epoch: 1}
	_, err := c.st.Fork(t.Context(), "s", 3, s, sharevat.Grant{ID: "f-owner", ShareID: "f", Epoch: 1})
	return err
}

func compact(t *testing.T, c storeCalls) error {
	_, err := c.st.Compact(t.Context(), "s", 4)
	return err
}

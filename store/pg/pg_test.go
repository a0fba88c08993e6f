package pg_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// MustOpen opens a store on a new, empty database and closes it when tb
// ends.
func MustOpen(tb testing.TB) *pg.Store {
	tb.Helper()
	return MustOpenDSN(tb, pgtest.DB(tb))
}

// MustOpenDSN opens a store on dsn and closes it when tb ends.
func MustOpenDSN(tb testing.TB, dsn string) *pg.Store {
	tb.Helper()
	st, err := pg.Open(tb.Context(), dsn, pg.Options{})
	require.NoError(tb, err, "Open")
	tb.Cleanup(func() { assert.NoError(tb, st.Close(), "Close") })
	return st
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sharevat.Store { return MustOpen(t) })
}

package main_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// redeemOn dials url and redeems token on a connection of its own; done
// closes that connection. Unlike redeemAt, the connection ends when the
// caller says, not at the test's cleanup.
func redeemOn(ctx context.Context, t *testing.T, url, token string) (sh *client.Share, done func()) {
	t.Helper()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	done = func() { conn.Close() }
	sh, err = conn.Redeem(ctx, token)
	if err != nil {
		done()
	}
	require.NoError(t, err)
	return sh, done
}

// readAll returns token's share's whole log.
func readAll(t *testing.T, url, token string) []sharevat.Entry {
	t.Helper()
	return readFrom(t, url, token, 0)
}

// readFrom returns token's share's log after cursor from.
func readFrom(t *testing.T, url, token string, from sharevat.Cursor) []sharevat.Entry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh, done := redeemOn(ctx, t, url, token)
	defer done()
	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	var all []sharevat.Entry
	_, err = rd.ReadAll(ctx, from, func(es []sharevat.Entry) error { all = append(all, es...); return nil })
	require.NoError(t, err)
	return all
}

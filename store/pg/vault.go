package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Claim stores value under name in the vault table unless a value is
// stored there already, and returns the stored value: the first caller's,
// whichever vat that was. Serve claims the pepper's fingerprint this way.
func (st *Store) Claim(ctx context.Context, name string, value []byte) ([]byte, error) {
	var got []byte
	err := st.update(ctx, "claim", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO vault (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, value); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT value FROM vault WHERE name = $1", name).Scan(&got)
	})
	return got, err
}

// Exclusive runs fn while holding the session-level advisory lock key on
// a connection of its own, so that fn runs in one vat at a time across
// every vat on the database (serve mints the first admin token this
// way). fn uses the store as usual.
func (st *Store) Exclusive(ctx context.Context, key int64, fn func() error) error {
	if st.closed.Load() {
		return errClosed
	}
	conn, err := st.pool.Acquire(ctx)
	if err != nil {
		return unavailable("lock", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return st.wrap("lock", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", key)
	}()
	return fn()
}

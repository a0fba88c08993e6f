package pg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/commit"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Store is a sharevat.Store over one PostgreSQL database. It is safe
// for concurrent use, and several Stores (in one process or many) may
// share one database.
type Store struct {
	pool    *pgxpool.Pool
	opts    Options
	commits *commit.Committer
	notices *notifier // append notices (notice.go)
	closed  atomic.Bool
}

var _ sharevat.Store = (*Store)(nil)

// Options tune Open. The zero value is ready to use.
type Options struct {
	// Logger receives what callers may not see: the detail of a failed
	// integrity check. Nil discards it.
	Logger *slog.Logger
	// OnCommit, if set, is called after every append transaction that
	// committed, with the number of Append calls and ops it carried and
	// how long it took.
	OnCommit func(calls, ops int, took time.Duration)
	// OnNotice, if set, is called by WatchChanges for every change
	// notice it receives, with how long after its trigger ran it arrived
	// (the notification lag; the clocks of two machines may differ).
	OnNotice func(lag time.Duration)
}

// Open connects to the database dsn names (a postgres:// URL or a
// key=value string, as pgx takes it; pool_max_conns sizes the pool,
// by default the larger of 4 and the number of CPUs), applies the schema migrations it
// lacks under an advisory lock, and returns the store. Errors:
// EUnavailable if the database cannot be reached; a database whose schema
// is newer than this build knows is refused.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, sharevat.Errorf(sharevat.EInvalid, "pg: the store's connection string does not parse")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, unavailable("open", err)
	}
	st := &Store{pool: pool, opts: opts}
	st.commits = commit.New(st.lead)
	if err := st.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	st.startNotifier()
	return st, nil
}

// PoolStat reports the connection pool's figures, for metrics.
func (st *Store) PoolStat() *pgxpool.Stat { return st.pool.Stat() }

// Close closes the pool. It is safe to call more than once; every
// method called after it fails with EUnavailable.
func (st *Store) Close() error {
	if st.closed.CompareAndSwap(false, true) {
		ctx, cancel := context.WithTimeout(context.Background(), noticeTimeout)
		st.notices.stop(ctx)
		cancel()
		st.pool.Close()
	}
	return nil
}

// errClosed is the answer of every method after Close.
var errClosed = sharevat.Errorf(sharevat.EUnavailable, "the store is closed")

// querier is what a pool and a transaction have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// maxAttempts bounds the runs of a transaction that failed on a
// serialization failure or a deadlock.
const maxAttempts = 5

// update runs fn in a read-committed transaction and commits it,
// retrying it whole on a serialization failure or a deadlock. op names
// the operation in wrapped errors.
func (st *Store) update(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	return st.inTx(ctx, op, pgx.TxOptions{}, fn)
}

// view runs fn in a read-only repeatable-read transaction: every
// statement of fn sees the same snapshot.
func (st *Store) view(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	return st.inTx(ctx, op, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

func (st *Store) inTx(ctx context.Context, op string, o pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	if st.closed.Load() {
		return errClosed
	}
	var err error
	for range maxAttempts {
		if err = pgx.BeginTxFunc(ctx, st.pool, o, fn); !retryable(err) {
			break
		}
	}
	return st.wrap(op, err)
}

// retryable reports a serialization failure or a deadlock: the
// transaction was rolled back and may simply run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// wrap translates an error of op for the caller: domain errors pass
// through; a failed integrity check is logged and becomes ECorrupt; a
// database that cannot be reached is EUnavailable; anything else is
// returned wrapped as "pg: <op>: …", not a domain error (EInternal at
// the RPC boundary).
func (st *Store) wrap(op string, err error) error {
	var de *sharevat.Error
	var re *core.RecordError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return st.corrupt(op, re)
	case errors.As(err, &de):
		return err
	case st.closed.Load():
		return errClosed
	case isUnavailable(err):
		return unavailable(op, err)
	}
	return fmt.Errorf("pg: %s: %w", op, err)
}

// isUnavailable reports an error that says the database cannot answer
// now: no connection, the server shutting down, too many connections,
// a full disk.
func isUnavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "57":
			return pe.Code != "57014" // query_canceled is the caller's own doing
		}
		return false
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err)
}

// unavailable is the EUnavailable answer for err, which only the
// caller's wrapped chain keeps.
func unavailable(op string, err error) error {
	return fmt.Errorf("pg: %s: %w: %w", op, sharevat.Errorf(sharevat.EUnavailable, "the database cannot be reached; retry later"), err)
}

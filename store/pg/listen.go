package pg

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

// changesChannel is the channel the triggers of migration 002 notify.
const changesChannel = "sharevat_changes"

// How the listener keeps its connection: it checks an idle connection
// with a round trip every listenPing, and reconnects after a failure
// waiting between listenRetryMin and listenRetryMax.
const (
	listenPing     = 2 * time.Second
	listenRetryMin = 50 * time.Millisecond
	listenRetryMax = 2 * time.Second
)

var _ sharevat.ChangeFeed = (*Store)(nil)

// WatchChanges implements sharevat.ChangeFeed: on a connection of its
// own (not the pool's), it LISTENs to the notices the database's
// triggers send when a transaction commits (migration 002) and passes
// each to fn. A connection that fails, or does not answer a round trip
// within listenPing while idle, is reported as ChangeLost and replaced,
// with backoff, until ctx ends.
func (st *Store) WatchChanges(ctx context.Context, fn func(sharevat.Change)) error {
	wait := listenRetryMin
	for {
		synced, err := st.listen(ctx, fn)
		if synced {
			fn(sharevat.Change{Kind: sharevat.ChangeLost})
			wait = listenRetryMin
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		st.opts.Logger.Warn("pg: change listener lost its connection; reconnecting", "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listen runs one listening connection until it fails or ctx ends; it
// reports whether it got as far as ChangeSynced.
func (st *Store) listen(ctx context.Context, fn func(sharevat.Change)) (bool, error) {
	if st.closed.Load() {
		return false, errClosed
	}
	conn, err := pgx.ConnectConfig(ctx, st.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return false, err
	}
	fn(sharevat.Change{Kind: sharevat.ChangeSynced})
	for {
		if err := st.next(ctx, conn, fn); err != nil {
			return true, err
		}
	}
}

// next waits up to listenPing for a notice and passes it on; an idle
// wait ends with a round trip that proves the connection alive.
func (st *Store) next(ctx context.Context, conn *pgx.Conn, fn func(sharevat.Change)) error {
	wctx, cancel := context.WithTimeout(ctx, listenPing)
	n, err := conn.WaitForNotification(wctx)
	cancel()
	switch {
	case err == nil:
		st.deliver(n.Payload, fn)
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed():
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, listenPing)
	defer cancel()
	return conn.Ping(pctx)
}

// deliver parses one notice and passes it on; one it cannot parse (a
// newer schema's, say) is logged and dropped.
func (st *Store) deliver(payload string, fn func(sharevat.Change)) {
	c, err := parseNotice(payload)
	if err != nil {
		st.opts.Logger.Warn("pg: a change notice does not parse", "err", err)
		return
	}
	if st.opts.OnNotice != nil {
		st.opts.OnNotice(time.Since(c.At))
	}
	fn(c)
}

// parseNotice reads "<kind> <id in hex> <head> <Unix µs>".
func parseNotice(p string) (sharevat.Change, error) {
	f := strings.Fields(p)
	if len(f) != 4 {
		return sharevat.Change{}, errors.New("want 4 fields")
	}
	id, err := hex.DecodeString(f[1])
	if err != nil {
		return sharevat.Change{}, errors.New("id not hex")
	}
	head, err1 := strconv.ParseInt(f[2], 10, 64)
	us, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil {
		return sharevat.Change{}, errors.New("numbers do not parse")
	}
	c := sharevat.Change{At: time.UnixMicro(us)}
	switch f[0] {
	case "a":
		c.Kind, c.Share, c.Head = sharevat.ChangeAppended, sharevat.ShareID(id), sharevat.Cursor(uint64(head))
	case "s":
		c.Kind, c.Share = sharevat.ChangeShare, sharevat.ShareID(id)
	case "g":
		c.Kind, c.Grant = sharevat.ChangeRevoked, sharevat.GrantID(id)
	default:
		return sharevat.Change{}, errors.New("unknown kind " + strconv.Quote(f[0]))
	}
	return c, nil
}

// Heads implements sharevat.ChangeFeed: one query for every share named.
func (st *Store) Heads(ctx context.Context, ids []sharevat.ShareID) (map[sharevat.ShareID]sharevat.Cursor, error) {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = b(id)
	}
	out := make(map[sharevat.ShareID]sharevat.Cursor, len(ids))
	err := st.view(ctx, "heads", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT id, head FROM shares WHERE id = ANY($1) AND NOT deleted", keys)
		if err != nil {
			return err
		}
		var id []byte
		var head int64
		_, err = pgx.ForEachRow(rows, []any{&id, &head}, func() error {
			out[sharevat.ShareID(id)] = sharevat.Cursor(uint64(head))
			return nil
		})
		return err
	})
	return out, err
}

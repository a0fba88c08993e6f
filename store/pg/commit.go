package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/commit"
	"github.com/sharevat/sharevat/store/internal/core"
)

// commitTimeout bounds one group's transaction: its calls' contexts are
// not the group's, so none of them may cancel it.
const commitTimeout = time.Minute

// Append applies one batch with the append engine (store/apply) in one
// transaction, shared with the concurrent appends of this Store (group
// commit, store/internal/commit), and returns once that transaction has
// committed. The batch is prepared on the caller's goroutine, outside
// the group. Errors: ENotFound if the share does not exist or is
// deleted; EInvalid if the batch is nil or the limits are invalid;
// EUnavailable once the store is closed.
func (st *Store) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	if err := core.CheckAppend(ctx, "pg", &req); err != nil {
		return sharevat.Ack{}, err
	}
	if st.closed.Load() {
		return sharevat.Ack{}, errClosed
	}
	call := commit.NewCall(req)
	st.commits.Do(call)
	return core.OrZero(call.Ack, call.Err)
}

// lead is the Store's commit.Leader: the group commits in one
// transaction (commitGroup) before leadership passes on.
func (st *Store) lead(group []*commit.Call) (then func()) {
	st.commitGroup(group)
	return nil
}

// commitGroup applies every call of group in one transaction. If the
// transaction fails, each call is retried alone, so that a failure in
// one call (or in the commit) is reported to that call only. Acks are
// set only after COMMIT returned.
func (st *Store) commitGroup(group []*commit.Call) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	start := time.Now()
	err := st.update(ctx, "append", func(tx pgx.Tx) error { return applyGroup(ctx, tx, group) })
	if err == nil && st.opts.OnCommit != nil {
		st.opts.OnCommit(len(group), commit.Ops(group), time.Since(start))
	}
	if err == nil || len(group) == 1 {
		commit.SetErr(group, err)
		st.notices.committed(group)
		return
	}
	for _, call := range group {
		one := []*commit.Call{call}
		commit.SetErr(one, st.update(ctx, "append", func(tx pgx.Tx) error { return applyGroup(ctx, tx, one) }))
	}
	st.notices.committed(group)
}

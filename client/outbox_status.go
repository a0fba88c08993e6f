package client

import (
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
)

// OpState is where an op is in an Outbox.
type OpState uint8

// The states of an op in an Outbox. An op goes from OpPending to OpDone or
// OpFailed, once, when the server's ack for its batch is recorded.
const (
	// OpPending: enqueued and not acked yet. It is sent by the next Flush,
	// and sent again (same batch id and seq) until an ack arrives.
	OpPending OpState = iota
	// OpDone: acked applied or duplicate (OutboxResult.Status says which);
	// OutboxResult.Cursor is where the op is in the log. Final.
	OpDone
	// OpFailed: acked rejected; OutboxResult.Reason and Message say why.
	// Never sent again, unless its op id is enqueued again. Final.
	OpFailed
	// OpUnknown: the outbox does not hold the op id: never enqueued, or
	// done and since pruned (OutboxOptions.KeepDone).
	OpUnknown
	// OpDamaged: the op's record in the outbox file fails its checksum:
	// it is never sent. Outbox.Damaged lists it and DiscardDamaged drops
	// it.
	OpDamaged
)

// opStates maps the outbox file's states to OpState.
var opStates = [...]OpState{
	outbox.StatePending: OpPending,
	outbox.StateDone:    OpDone,
	outbox.StateFailed:  OpFailed,
	outbox.StateUnknown: OpUnknown,
	outbox.StateDamaged: OpDamaged,
}

// String returns "pending", "done", "failed", "damaged" or "unknown".
func (s OpState) String() string {
	switch s {
	case OpDamaged:
		return "damaged"
	case OpPending:
		return "pending"
	case OpDone:
		return "done"
	case OpFailed:
		return "failed"
	}
	return "unknown"
}

// OutboxResult is where one op is in an Outbox and, once acked, what the
// server answered for it. Which fields are set depends on State.
type OutboxResult struct {
	OpID  string
	State OpState
	// BatchID is the batch the op is sent in, once the outbox assigned it
	// one (just before its first send); "" before that. A resend keeps it.
	BatchID string
	// Status is the server's verdict: StatusApplied or StatusDuplicate for
	// OpDone, StatusRejected for OpFailed; meaningless while OpPending.
	Status sharevat.OpStatus
	// Cursor is where the op is in the share's log (OpDone): the cursor it
	// was applied at, or, for a duplicate, the cursor of the original.
	Cursor sharevat.Cursor
	// Reason and Message say why the op was rejected (OpFailed): the
	// wire-stable reason, and the server's human-readable detail.
	Reason  sharevat.Reason
	Message string
	// AckedAt is when the ack was recorded (OpDone, OpFailed).
	AckedAt time.Time
}

func resultOf(r outbox.Result) OutboxResult {
	st := OpUnknown
	if int(r.State) < len(opStates) {
		st = opStates[r.State]
	}
	return OutboxResult{OpID: r.OpID, State: st, BatchID: r.BatchID, Status: r.Status,
		Cursor: r.Cursor, Reason: r.Reason, Message: r.Message, AckedAt: r.AckedAt}
}

func resultsOf(rs []outbox.Result, err error) ([]OutboxResult, error) {
	if rs == nil {
		return nil, err
	}
	out := make([]OutboxResult, len(rs))
	for i, r := range rs {
		out[i] = resultOf(r)
	}
	return out, err
}

// OutboxStatus summarises an Outbox.
type OutboxStatus struct {
	Pending int // ops not acked yet (OpPending)
	Done    int // done results still kept (OpDone; see OutboxOptions.KeepDone)
	// LastAckedCursor is the highest share head reported by an ack.
	LastAckedCursor sharevat.Cursor
	LastError       string // the last flush error; cleared by the next ack
	LastErrorAt     time.Time
	ShareID         sharevat.ShareID // the share the outbox is bound to; "" before the first flush
	Failed          []OutboxResult   // rejected ops (OpFailed), in enqueue order
	// Damaged counts the records that fail their checksum (see
	// Outbox.Damaged): never sent, not in Pending, Done or Failed.
	Damaged int
}

// Status summarises the outbox, with the list of failed ops.
func (o *Outbox) Status() (OutboxStatus, error) {
	st, err := o.db.Status()
	if err != nil {
		return OutboxStatus{}, err
	}
	failed, err := o.Failed()
	return OutboxStatus{
		Pending: st.Pending, Done: st.Done, LastAckedCursor: st.LastAckedCursor,
		LastError: st.LastError, LastErrorAt: st.LastErrorAt, ShareID: st.ShareID, Failed: failed,
		Damaged: st.Damaged,
	}, err
}

// Damaged lists the records of the outbox file that fail their checksum
// (each a *outbox.DamagedRecordError naming the file, the record and the
// op id as far as it can be read). They are never sent; Flush sends the
// healthy ops around them.
func (o *Outbox) Damaged() ([]*outbox.DamagedRecordError, error) { return o.db.Damaged() }

// DiscardDamaged drops the damaged records (see Damaged) and returns
// them. A dropped pending op is never sent: enqueue it again if it is
// still wanted.
func (o *Outbox) DiscardDamaged() ([]*outbox.DamagedRecordError, error) { return o.db.DiscardDamaged() }

// Failed lists the rejected ops (reason and message), in enqueue order.
// They stay until their op id is enqueued again.
func (o *Outbox) Failed() ([]OutboxResult, error) { return resultsOf(o.db.Failed()) }

// Pending lists the ops not acked yet, in enqueue order.
func (o *Outbox) Pending() ([]OutboxResult, error) { return resultsOf(o.db.Pending()) }

// Results looks ops up by id, in the order given; an id the outbox does
// not hold is OpUnknown.
func (o *Outbox) Results(ids ...string) ([]OutboxResult, error) { return resultsOf(o.db.Results(ids)) }

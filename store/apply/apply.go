package apply

import (
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
)

// Tx is the view of one share inside one store transaction that Apply
// works on. Implementations read and write the same transaction, so every
// check sees the ops applied before it.
type Tx interface {
	// Epoch is the share's current epoch.
	Epoch() sharevat.Epoch
	// Head is the cursor of the share's last op (0 when empty).
	Head() sharevat.Cursor
	// Lookup finds an op id in the permanent op-id index: its cursor and
	// digest (Short for a compacted op whose store keeps only a prefix).
	Lookup(opID string) (ix sharevat.IndexedOp, ok bool, err error)
	// Put appends e at Head()+1 (e.Cursor is already set to it), indexes
	// its op id, and upserts or deletes its entity for state kinds.
	Put(e *sharevat.Entry) error
}

// Batch is a sharevat.Batch with the part of the append work that reads
// no store state already done (Prepare): each op's digests, its verdicts
// on the op id's form, on check 5 (limits, shape, JSON) and on check 6
// (the privacy guard), and the body it would be stored with. The
// verdicts count only in their turn (Apply).
type Batch struct {
	batch *sharevat.Batch
	ops   []prepared
}

// prepared is what Prepare found for one op.
type prepared struct {
	badID   string          // why the op id is malformed: rejected invalid at once
	reason  sharevat.Reason // check 5's or 6's verdict (ReasonNone: passes)
	message string
	guarded // the privacy guard's work: body and digests
}

// Prepare does the state-free part of appending b under lim, with the
// share's privacy policy pol. b must not change until Apply has run.
func Prepare(b *sharevat.Batch, lim sharevat.Limits, pol sharevat.Privacy) *Batch {
	p := &Batch{batch: b, ops: make([]prepared, len(b.Ops))}
	batchProblem := checkBatch(b, lim)
	for i := range b.Ops {
		op, po := &b.Ops[i], &p.ops[i]
		if po.badID = checkOpID(op.OpID, lim); po.badID != "" {
			continue
		}
		po.digest = Digest(op)
		po.stored, po.body = po.digest, op.Body
		if po.reason, po.message = checkOp(op, lim, batchProblem); po.reason == sharevat.ReasonNone {
			po.reason, po.message = po.guard(op, b.BatchID, pol, lim)
		}
	}
	return p
}

// Apply runs the append semantics of docs/design.md §5 over tx: for each
// op, in order, (1) op id already in the log → duplicate, or idReused if
// the content differs; (2) batch epoch ≠ share epoch → staleEpoch; (3) a
// dependency not in the log → missingDependency; (4) expected cursor ≠
// head → conflict; (5) op or batch over limits, or malformed → tooLarge /
// invalid; (6) a secret-shaped string under the policy reject → secret
// (5 and 6 found by Prepare); else applied at head+1, with its body
// redacted under the policy redact (Ack.Redacted counts the
// replacements). A malformed op id is rejected invalid before (1). The
// error return is for store failures only; the caller must then abort
// the transaction.
func (p *Batch) Apply(tx Tx, now time.Time) (sharevat.Ack, error) {
	ack := sharevat.Ack{Results: make([]sharevat.OpResult, len(p.ops))}
	for i := range p.ops {
		res, err := applyOp(tx, p.batch, &p.batch.Ops[i], &p.ops[i], now)
		if err != nil {
			return sharevat.Ack{}, err
		}
		ack.Results[i] = res
		if res.Status == sharevat.StatusApplied {
			ack.Redacted += p.ops[i].redacted
		}
	}
	ack.Head = tx.Head()
	ack.Count()
	return ack, nil
}

func applyOp(tx Tx, b *sharevat.Batch, op *sharevat.Op, po *prepared, now time.Time) (sharevat.OpResult, error) {
	res := sharevat.OpResult{OpID: op.OpID, Status: sharevat.StatusRejected}
	if po.badID != "" {
		res.Reason, res.Message = sharevat.ReasonInvalid, po.badID
		return res, nil
	}
	stored, found, err := tx.Lookup(op.OpID)
	if err != nil {
		return res, err
	}
	if found {
		return duplicateResult(res, stored.Cursor, po.same(op, &stored)), nil
	}
	res.Reason, res.Message, err = precheck(tx, b, op)
	if err != nil || res.Reason != sharevat.ReasonNone {
		return res, err
	}
	if po.reason != sharevat.ReasonNone {
		res.Reason, res.Message = po.reason, po.message
		return res, nil
	}
	e := &sharevat.Entry{
		Cursor: tx.Head() + 1, OpID: op.OpID, BatchID: b.BatchID, Seq: op.Seq,
		Kind: op.Kind, Key: op.Key, Body: po.body, Delete: op.Delete, At: now, Digest: po.stored,
	}
	if err := tx.Put(e); err != nil {
		return res, err
	}
	return sharevat.OpResult{OpID: op.OpID, Status: sharevat.StatusApplied, Cursor: e.Cursor}, nil
}

func duplicateResult(res sharevat.OpResult, cur sharevat.Cursor, same bool) sharevat.OpResult {
	res.Cursor = cur
	if !same {
		res.Reason = sharevat.ReasonIDReused
		res.Message = fmt.Sprintf("op id already applied at cursor %d with different content", cur)
		return res
	}
	res.Status = sharevat.StatusDuplicate
	return res
}

// precheck runs checks 2–4: epoch, dependencies, expected cursor.
func precheck(tx Tx, b *sharevat.Batch, op *sharevat.Op) (sharevat.Reason, string, error) {
	if b.Epoch != tx.Epoch() {
		return sharevat.ReasonStaleEpoch, fmt.Sprintf("batch epoch %d is not the share's epoch %d", b.Epoch, tx.Epoch()), nil
	}
	for _, dep := range op.DependsOn {
		_, ok, err := tx.Lookup(dep)
		if err != nil {
			return sharevat.ReasonNone, "", err
		}
		if !ok {
			return sharevat.ReasonMissingDependency, fmt.Sprintf("dependency %q is not in the log", dep), nil
		}
	}
	if op.ExpectedCursor != nil && *op.ExpectedCursor != tx.Head() {
		return sharevat.ReasonConflict, fmt.Sprintf("expected head %d, head is %d", *op.ExpectedCursor, tx.Head()), nil
	}
	return sharevat.ReasonNone, "", nil
}

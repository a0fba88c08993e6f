package sharevat

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// LogTx is the view of one share inside one store transaction that
// ApplyPrepared works on. Implementations read and write the same
// transaction, so every check sees the ops applied before it.
type LogTx interface {
	// Epoch is the share's current epoch.
	Epoch() Epoch
	// Head is the cursor of the share's last op (0 when empty).
	Head() Cursor
	// Lookup finds an op id in the permanent op-id index.
	Lookup(opID string) (cursor Cursor, digest [32]byte, ok bool, err error)
	// Put appends e at Head()+1 (e.Cursor is already set to it), indexes
	// its op id, and upserts or deletes its entity for state kinds.
	Put(e *Entry) error
}

// PreparedBatch is a batch with the part of the append work that reads
// no store state already done (PrepareBatch): each op's digest, and its
// verdicts on the op id's form and on check 5 (limits, shape, JSON). A
// store prepares before it takes its write transaction, so that work
// stays out of the serial section that group commit shares; the verdicts
// still count only in their turn (ApplyPrepared).
type PreparedBatch struct {
	batch *Batch
	ops   []preparedOp
}

// preparedOp is what PrepareBatch found for one op.
type preparedOp struct {
	badID   string // why the op id is malformed: rejected invalid at once
	digest  [32]byte
	reason  Reason // check 5's verdict (ReasonNone: passes)
	message string
}

// PrepareBatch does the state-free part of appending b under lim. b must
// not change until ApplyPrepared has run.
func PrepareBatch(b *Batch, lim Limits) *PreparedBatch {
	p := &PreparedBatch{batch: b, ops: make([]preparedOp, len(b.Ops))}
	batchProblem := lim.checkBatchLimits(b)
	for i := range b.Ops {
		op, po := &b.Ops[i], &p.ops[i]
		if po.badID = checkOpID(op.OpID, lim); po.badID != "" {
			continue
		}
		po.digest = OpDigest(op)
		po.reason, po.message = validateOp(op, lim, batchProblem)
	}
	return p
}

// ApplyPrepared runs the append semantics of docs/design.md §5 over tx: for
// each op, in order, (1) op id already in the log → duplicate, or
// idReused if the content differs; (2) batch epoch ≠ share epoch →
// staleEpoch; (3) a dependency not in the log → missingDependency;
// (4) expected cursor ≠ head → conflict; (5) op or batch over limits, or
// malformed → tooLarge / invalid (found by PrepareBatch); else applied at
// head+1. A malformed op id is rejected invalid before (1). The error
// return is for store failures only; the caller must then abort the
// transaction.
func ApplyPrepared(tx LogTx, p *PreparedBatch, now time.Time) (Ack, error) {
	ack := Ack{Results: make([]OpResult, len(p.ops))}
	for i := range p.ops {
		res, err := applyOp(tx, p.batch, &p.batch.Ops[i], &p.ops[i], now)
		if err != nil {
			return Ack{}, err
		}
		ack.Results[i] = res
	}
	ack.Head = tx.Head()
	ack.Count()
	return ack, nil
}

func applyOp(tx LogTx, b *Batch, op *Op, po *preparedOp, now time.Time) (OpResult, error) {
	res := OpResult{OpID: op.OpID, Status: StatusRejected}
	if po.badID != "" {
		res.Reason, res.Message = ReasonInvalid, po.badID
		return res, nil
	}
	cur, stored, found, err := tx.Lookup(op.OpID)
	if err != nil {
		return res, err
	}
	if found {
		return duplicateResult(res, cur, stored == po.digest), nil
	}
	res.Reason, res.Message, err = precheck(tx, b, op)
	if err != nil || res.Reason != ReasonNone {
		return res, err
	}
	if po.reason != ReasonNone {
		res.Reason, res.Message = po.reason, po.message
		return res, nil
	}
	e := &Entry{
		Cursor: tx.Head() + 1, OpID: op.OpID, BatchID: b.BatchID, Seq: op.Seq,
		Kind: op.Kind, Key: op.Key, Body: op.Body, Delete: op.Delete, At: now, Digest: po.digest,
	}
	if err := tx.Put(e); err != nil {
		return res, err
	}
	return OpResult{OpID: op.OpID, Status: StatusApplied, Cursor: e.Cursor}, nil
}

func duplicateResult(res OpResult, cur Cursor, same bool) OpResult {
	res.Cursor = cur
	if !same {
		res.Reason = ReasonIDReused
		res.Message = fmt.Sprintf("op id already applied at cursor %d with different content", cur)
		return res
	}
	res.Status = StatusDuplicate
	return res
}

// precheck runs checks 2–4: epoch, dependencies, expected cursor.
func precheck(tx LogTx, b *Batch, op *Op) (Reason, string, error) {
	if b.Epoch != tx.Epoch() {
		return ReasonStaleEpoch, fmt.Sprintf("batch epoch %d is not the share's epoch %d", b.Epoch, tx.Epoch()), nil
	}
	for _, dep := range op.DependsOn {
		_, _, ok, err := tx.Lookup(dep)
		if err != nil {
			return ReasonNone, "", err
		}
		if !ok {
			return ReasonMissingDependency, fmt.Sprintf("dependency %q is not in the log", dep), nil
		}
	}
	if op.ExpectedCursor != nil && *op.ExpectedCursor != tx.Head() {
		return ReasonConflict, fmt.Sprintf("expected head %d, head is %d", *op.ExpectedCursor, tx.Head()), nil
	}
	return ReasonNone, "", nil
}

func checkOpID(id string, lim Limits) string {
	switch {
	case id == "":
		return "op id is empty"
	case len(id) > lim.MaxOpIDLen:
		return fmt.Sprintf("op id is %d bytes; limit is %d", len(id), lim.MaxOpIDLen)
	case !utf8.ValidString(id):
		return "op id is not valid UTF-8"
	}
	return ""
}

// validateOp runs check 5: limits and well-formedness.
func validateOp(op *Op, lim Limits, batchProblem string) (Reason, string) {
	switch {
	case batchProblem != "":
		return ReasonTooLarge, batchProblem
	case len(op.Body) > lim.MaxBodyBytes:
		return ReasonTooLarge, fmt.Sprintf("body is %d bytes; limit is %d", len(op.Body), lim.MaxBodyBytes)
	case len(op.Key) > lim.MaxKeyLen:
		return ReasonTooLarge, fmt.Sprintf("key is %d bytes; limit is %d", len(op.Key), lim.MaxKeyLen)
	case len(op.DependsOn) > lim.MaxDependsOn:
		return ReasonTooLarge, fmt.Sprintf("op has %d dependencies; limit is %d", len(op.DependsOn), lim.MaxDependsOn)
	}
	if msg := checkShape(op); msg != "" {
		return ReasonInvalid, msg
	}
	return ReasonNone, ""
}

// checkShape checks kind, key, delete and body against the kind's rules.
func checkShape(op *Op) string {
	switch {
	case !IsKnownKind(op.Kind):
		return fmt.Sprintf("unknown kind %q", op.Kind)
	case IsStateKind(op.Kind) && op.Key == "":
		return fmt.Sprintf("kind %q needs a key", op.Kind)
	case !IsStateKind(op.Kind) && (op.Key != "" || op.Delete):
		return fmt.Sprintf("kind %q takes no key and no delete", op.Kind)
	case !utf8.ValidString(op.Key):
		return "key is not valid UTF-8"
	case op.Delete && len(op.Body) == 0:
		return ""
	case !json.Valid(op.Body):
		return fmt.Sprintf("body of kind %q is not valid JSON", op.Kind)
	}
	return ""
}

// OpDigest fingerprints an op's content (kind, key, body, delete), to tell
// a retry from an op id reused for something else. Batch, seq and
// preconditions are not content: a retry may regroup its ops.
func OpDigest(op *Op) [32]byte {
	h := sha256.New()
	for _, s := range []string{op.Kind, op.Key} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	if op.Delete {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(op.Body)
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

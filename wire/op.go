package wire

import (
	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetBatch writes b into dst.
func SetBatch(dst schema.Batch, b *sharevat.Batch) error {
	var e errs
	e.do(dst.SetBatchId(b.BatchID))
	dst.SetEpoch(uint64(b.Epoch))
	ops, err := dst.NewOps(int32(len(b.Ops)))
	e.do(err)
	for i := 0; e.err == nil && i < len(b.Ops); i++ {
		e.do(setOp(ops.At(i), &b.Ops[i]))
	}
	return e.err
}

func setOp(dst schema.Op, op *sharevat.Op) error {
	var e errs
	e.do(dst.SetOpId(op.OpID))
	dst.SetSeq(op.Seq)
	e.do(setTextList(dst.NewDependsOn, op.DependsOn))
	if op.ExpectedCursor != nil {
		dst.Expected().SetCursor(uint64(*op.ExpectedCursor))
	} else {
		dst.Expected().SetNone()
	}
	e.do(dst.SetKind(op.Kind))
	e.do(dst.SetKey(op.Key))
	e.do(dst.SetBody(op.Body))
	dst.SetDelete(op.Delete)
	return e.err
}

func setTextList(newList func(int32) (capnp.TextList, error), items []string) error {
	if len(items) == 0 {
		return nil
	}
	l, err := newList(int32(len(items)))
	for i := 0; err == nil && i < len(items); i++ {
		err = l.Set(i, items[i])
	}
	return err
}

// MaxBatchOps is the most ops ReadBatch decodes: the largest
// MaxOpsPerBatch that sharevat.Limits.Validate accepts. A list of empty
// structs costs its sender a few bytes however long it is, so a longer
// list is refused before anything is allocated for it.
const MaxBatchOps = 100_000

// ReadBatch decodes a batch. Malformed input is EInvalid, and more than
// MaxBatchOps ops ETooLarge; the configured limits are checked later, by
// the append engine (store/apply).
func ReadBatch(src schema.Batch) (*sharevat.Batch, error) {
	var e errs
	b := &sharevat.Batch{BatchID: e.text(src.BatchId), Epoch: sharevat.Epoch(src.Epoch())}
	ops, err := src.Ops()
	e.do(err)
	if e.err == nil && ops.Len() > MaxBatchOps {
		return b, sharevat.Errorf(sharevat.ETooLarge, "batch has %d ops; no server accepts more than %d", ops.Len(), MaxBatchOps)
	}
	if e.err == nil {
		b.Ops = make([]sharevat.Op, ops.Len())
	}
	for i := 0; e.err == nil && i < ops.Len(); i++ {
		b.Ops[i], err = readOp(ops.At(i))
		e.do(err)
	}
	return b, invalid("batch", e.err)
}

func readOp(src schema.Op) (sharevat.Op, error) {
	var e errs
	op := sharevat.Op{
		OpID: e.text(src.OpId), Seq: src.Seq(), Kind: e.text(src.Kind), Key: e.text(src.Key),
		Body: e.data(src.Body), Delete: src.Delete(),
	}
	deps, err := src.DependsOn()
	e.do(err)
	op.DependsOn = readTextList(&e, deps)
	if src.Expected().Which() == schema.Op_expected_Which_cursor {
		c := sharevat.Cursor(src.Expected().Cursor())
		op.ExpectedCursor = &c
	}
	return op, e.err
}

func readTextList(e *errs, l capnp.TextList) []string {
	if l.Len() == 0 {
		return nil
	}
	out := make([]string, l.Len())
	for i := range out {
		out[i] = e.text(func() (string, error) { return l.At(i) })
	}
	return out
}

// SetAck writes ack into dst.
func SetAck(dst schema.Ack, ack sharevat.Ack) error {
	dst.SetHead(uint64(ack.Head))
	dst.SetApplied(uint32(ack.Applied))
	dst.SetDuplicates(uint32(ack.Duplicates))
	dst.SetRejected(uint32(ack.Rejected))
	dst.SetRedacted(uint32(ack.Redacted))
	l, err := dst.NewResults(int32(len(ack.Results)))
	for i := 0; err == nil && i < len(ack.Results); i++ {
		err = setResult(l.At(i), ack.Results[i])
	}
	return err
}

func setResult(dst schema.OpResult, r sharevat.OpResult) error {
	var e errs
	e.do(dst.SetOpId(r.OpID))
	dst.SetStatus(schema.OpStatus(r.Status))
	dst.SetCursor(uint64(r.Cursor))
	dst.SetReason(schema.Reason(r.Reason))
	if r.Message != "" {
		e.do(dst.SetDetail(r.Message))
	}
	return e.err
}

// ReadAck decodes an ack.
func ReadAck(src schema.Ack) (sharevat.Ack, error) {
	var e errs
	ack := sharevat.Ack{
		Head: sharevat.Cursor(src.Head()), Applied: int(src.Applied()),
		Duplicates: int(src.Duplicates()), Rejected: int(src.Rejected()), Redacted: int(src.Redacted()),
	}
	l, err := src.Results()
	e.do(err)
	ack.Results = make([]sharevat.OpResult, l.Len())
	for i := range ack.Results {
		r := l.At(i)
		ack.Results[i] = sharevat.OpResult{
			OpID: e.text(r.OpId), Status: sharevat.OpStatus(r.Status()), Cursor: sharevat.Cursor(r.Cursor()),
			Reason: sharevat.Reason(r.Reason()), Message: e.text(r.Detail),
		}
	}
	return ack, invalid("ack", e.err)
}

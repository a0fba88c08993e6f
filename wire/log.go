package wire

import (
	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetEntries fills a new list with entries.
func SetEntries(newList func(int32) (schema.LogEntry_List, error), entries []sharevat.Entry) error {
	l, err := newList(int32(len(entries)))
	for i := 0; err == nil && i < len(entries); i++ {
		err = setEntry(l.At(i), &entries[i])
	}
	return err
}

func setEntry(dst schema.LogEntry, en *sharevat.Entry) error {
	var e errs
	dst.SetCursor(uint64(en.Cursor))
	e.do(dst.SetOpId(en.OpID))
	e.do(dst.SetBatchId(en.BatchID))
	dst.SetSeq(en.Seq)
	e.do(dst.SetKind(en.Kind))
	e.do(dst.SetKey(en.Key))
	e.do(dst.SetBody(en.Body))
	dst.SetDelete(en.Delete)
	dst.SetAt(Nanos(en.At))
	return e.err
}

// ReadEntries decodes a list of log entries.
func ReadEntries(l schema.LogEntry_List) ([]sharevat.Entry, error) {
	var e errs
	out := make([]sharevat.Entry, l.Len())
	for i := range out {
		src := l.At(i)
		out[i] = sharevat.Entry{
			Cursor: sharevat.Cursor(src.Cursor()), OpID: e.text(src.OpId), BatchID: e.text(src.BatchId),
			Seq: src.Seq(), Kind: e.text(src.Kind), Key: e.text(src.Key), Body: e.data(src.Body),
			Delete: src.Delete(), At: Time(src.At()),
		}
	}
	return out, invalid("log entries", e.err)
}

// SetEntities fills a new list with entities.
func SetEntities(newList func(int32) (schema.Entity_List, error), ents []sharevat.Entity) error {
	l, err := newList(int32(len(ents)))
	for i := 0; err == nil && i < len(ents); i++ {
		dst, en := l.At(i), &ents[i]
		var e errs
		e.do(dst.SetKind(en.Kind))
		e.do(dst.SetKey(en.Key))
		e.do(dst.SetBody(en.Body))
		dst.SetCursor(uint64(en.Cursor))
		dst.SetAt(Nanos(en.At))
		err = e.err
	}
	return err
}

// ReadEntities decodes a list of entities.
func ReadEntities(l schema.Entity_List) ([]sharevat.Entity, error) {
	var e errs
	out := make([]sharevat.Entity, l.Len())
	for i := range out {
		src := l.At(i)
		out[i] = sharevat.Entity{
			Kind: e.text(src.Kind), Key: e.text(src.Key), Body: e.data(src.Body),
			Cursor: sharevat.Cursor(src.Cursor()), At: Time(src.At()),
		}
	}
	return out, invalid("entities", e.err)
}

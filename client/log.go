package client

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Appender appends batches to a share.
type Appender struct{ cap schema.Appender }

// Release drops the capability.
func (a *Appender) Release() { a.cap.Release() }

// Append sends one batch and returns its ack once the server has made it
// durable. A transport error means the outcome is unknown: resend the
// same batch (same op ids) and the ack tells what was applied.
func (a *Appender) Append(ctx context.Context, b *sharevat.Batch) (sharevat.Ack, error) {
	fut, release := a.cap.Append(ctx, func(p schema.Appender_append_Params) error {
		dst, err := p.NewBatch()
		if err != nil {
			return err
		}
		return wire.SetBatch(dst, b)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Ack{}, fromWire(err)
	}
	src, err := res.Ack()
	if err != nil {
		return sharevat.Ack{}, err
	}
	return wire.ReadAck(src)
}

// Reader reads a share's log and state.
type Reader struct{ cap schema.Reader }

// Release drops the capability.
func (r *Reader) Release() { r.cap.Release() }

// Read returns ops with cursor > from (at most limit; 0 for the server's
// page size, which also caps larger limits) and the share's head.
func (r *Reader) Read(ctx context.Context, from sharevat.Cursor, limit int) ([]sharevat.Entry, sharevat.Cursor, error) {
	fut, release := r.cap.Read(ctx, func(p schema.Reader_read_Params) error {
		p.SetFromCursor(uint64(from))
		p.SetLimit(uint32(max(0, min(limit, 1<<31))))
		return nil
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, 0, fromWire(err)
	}
	l, err := res.Ops()
	if err != nil {
		return nil, 0, err
	}
	entries, err := wire.ReadEntries(l)
	return entries, sharevat.Cursor(res.Head()), err
}

// ReadAll pages through every op after from up to the head seen at the
// first page, calling fn for each page.
func (r *Reader) ReadAll(ctx context.Context, from sharevat.Cursor, fn func([]sharevat.Entry) error) (sharevat.Cursor, error) {
	for {
		entries, head, err := r.Read(ctx, from, 0)
		if err != nil {
			return from, err
		}
		if len(entries) > 0 {
			if err := fn(entries); err != nil {
				return from, err
			}
			from = entries[len(entries)-1].Cursor
		}
		if len(entries) == 0 || from >= head {
			return from, nil
		}
	}
}

// Snapshot returns the materialized state and the cursor it reflects.
func (r *Reader) Snapshot(ctx context.Context) ([]sharevat.Entity, sharevat.Cursor, error) {
	fut, release := r.cap.Snapshot(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, 0, fromWire(err)
	}
	l, err := res.Entities()
	if err != nil {
		return nil, 0, err
	}
	ents, err := wire.ReadEntities(l)
	return ents, sharevat.Cursor(res.Cursor()), err
}

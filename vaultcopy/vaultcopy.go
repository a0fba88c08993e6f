package vaultcopy

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/pg"
)

// Counts is what a copy wrote.
type Counts struct {
	Shares    int // deleted ones included
	Grants    int // of the shares, and the admin grants
	Ops       int // log entries copied (or appended again)
	Compacted int // op ids of compacted ops copied (way there only)
	Audit     int // audit records
}

// Options are a copy's settings.
type Options struct {
	// Pepper is the vats' pepper, handed to CheckPepper.
	Pepper []byte
	// CheckPepper, when set, checks or records the pepper's fingerprint
	// in the database: on the way there after the copy, on the way back
	// before anything is read. Its error ends the copy.
	CheckPepper func(ctx context.Context, db Claimer, pepper []byte) error
}

// Claimer is what CheckPepper gets of the PostgreSQL store: a value
// recorded once under a name (*pg.Store.Claim).
type Claimer interface {
	Claim(ctx context.Context, name string, value []byte) ([]byte, error)
}

// checkPepper runs o.CheckPepper, if any.
func (o *Options) checkPepper(ctx context.Context, db *pg.Store) error {
	if o.CheckPepper == nil {
		return nil
	}
	return o.CheckPepper(ctx, db, o.Pepper)
}

// pageSize is how many entries or records one read of the source asks
// for.
const pageSize = 1000

// readCompacted reads what the compactions of s kept beyond its log from
// src, checking it was read at s's earliest cursor (the vat is stopped,
// so nothing moves in between).
func readCompacted(ctx context.Context, src sharevat.Store, s sharevat.Share) (sharevat.Compacted, error) {
	cr, ok := src.(sharevat.CompactedReader)
	if !ok {
		return sharevat.Compacted{}, sharevat.Errorf(sharevat.EInvalid, "the share was compacted, and this store cannot give the op ids of the ops it dropped")
	}
	k, err := cr.ReadCompacted(ctx, s.ID)
	if err == nil && k.Earliest != s.Earliest {
		err = sharevat.Errorf(sharevat.EInternal, "the share's earliest cursor moved from %d to %d while it was read: is a vat running?", s.Earliest, k.Earliest)
	}
	return k, err
}

// readLog calls each with every page of s's log after cursor from up to
// its head (a deleted share has none left to read).
func readLog(ctx context.Context, src sharevat.Store, s sharevat.Share, from sharevat.Cursor, each func([]sharevat.Entry) error) error {
	if s.Deleted {
		return nil
	}
	for after := from; after < s.Head; {
		page, _, err := src.Read(ctx, s.ID, after, pageSize)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return sharevat.Errorf(sharevat.EInternal, "the log ends at %d before its head %d", after, s.Head)
		}
		if err := each(page); err != nil {
			return err
		}
		after = page[len(page)-1].Cursor
	}
	return nil
}

// readAudit calls each with every page of src's audit log, in order.
func readAudit(ctx context.Context, src sharevat.Store, each func([]sharevat.AuditRecord) error) (int, error) {
	n := 0
	for after := uint64(0); ; {
		page, err := src.AuditLog(ctx, "", after, pageSize)
		if err != nil || len(page) == 0 {
			return n, err
		}
		if err := each(page); err != nil {
			return n, err
		}
		n, after = n+len(page), page[len(page)-1].Seq
	}
}

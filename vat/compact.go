package vat

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// compactStep is the most log entries one store transaction of a
// compaction drops: a compaction of a long log is many short
// transactions, so it never holds the write lock, or the pages it
// rewrites, for long, and readers see its earliest cursor move.
const compactStep = 4096

// Compact drops the ops before a cursor; it needs admin.
func (s *shareServer) Compact(ctx context.Context, call schema.Share_compact) error {
	return s.f.run(ctx, "Share.compact", sharevat.ScopeAdmin, func(ctx context.Context) error {
		v := s.f.vat
		earliest, dropped, err := v.compact(ctx, s.f.share(), sharevat.Cursor(call.Args().BeforeCursor()))
		if dropped > 0 {
			v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditCompact, ShareID: s.f.share(), GrantID: s.f.lg.g.ID,
				Scope: s.f.rights, Epoch: s.f.lg.g.Epoch, Peer: s.f.peer, Result: resultOf(err)})
		}
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		res.SetEarliest(uint64(earliest))
		return nil
	})
}

// compact drops the share's log entries before cursor before, in steps
// of at most compactStep entries, and returns the earliest cursor still
// readable and how many entries it dropped. A failure part way keeps the
// steps already done. Errors: those of Store.Compact (EInvalid past
// head+1, ENotFound); a cancelled ctx between steps.
func (v *Vat) compact(ctx context.Context, id sharevat.ShareID, before sharevat.Cursor) (sharevat.Cursor, uint64, error) {
	sh, err := v.store.Share(ctx, id)
	switch {
	case err != nil:
		return 0, 0, err
	case sh.Deleted:
		return 0, 0, sharevat.Errorf(sharevat.ENotFound, "no share %s", id)
	case before > sh.Head+1:
		return sh.Earliest, 0, sharevat.Errorf(sharevat.EInvalid, "cannot compact before cursor %d: the head is %d", before, sh.Head)
	}
	earliest, dropped := sh.Earliest, uint64(0)
	defer v.byteCounts.forget(id) // the bytes it held are counted again (sharebytes.go)
	for earliest < before {
		if err := ctx.Err(); err != nil {
			return earliest, dropped, context.Cause(ctx)
		}
		next, err := v.store.Compact(ctx, id, min(before, earliest+compactStep))
		if err != nil {
			return earliest, dropped, fmt.Errorf("compact: %w", err)
		}
		if next <= earliest { // nothing moved: never spin
			break
		}
		dropped += uint64(next - earliest)
		earliest = next
	}
	return earliest, dropped, nil
}

// resultOf is an audit record's result: "ok" or the error's code.
func resultOf(err error) string {
	if err == nil {
		return "ok"
	}
	return string(sharevat.ErrorCode(err))
}

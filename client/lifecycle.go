package client

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Fork creates a new share whose log is this share's ops 1..at (same op
// ids, batch ids, kinds, keys, bodies and order) and whose state is this
// share's state at that cursor. The fork records this share as its parent
// (Info.ParentID) and at as its fork cursor; later appends to either
// share do not reach the other. meta's set fields override the parent's
// title, project, directory and version. The caller gets the fork's owner
// capability and its owner token (every right; shown once: keep it).
// Needs read.
//
// Errors: EInvalid when at is past the head; ECompacted when at is
// before the earliest cursor a compaction left; ETooLarge when the fork
// would exceed the server's quota of forks (docs/decisions.md); ERevoked
// or EPermissionDenied for this capability.
func (s *Share) Fork(ctx context.Context, at sharevat.Cursor, meta sharevat.MetaPatch) (*Share, sharevat.Minted, error) {
	fut, release := s.cap.Fork(ctx, func(p schema.Share_fork_Params) error {
		p.SetAtCursor(uint64(at))
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, meta)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, sharevat.Minted{}, fromWire(err)
	}
	return readCreated(res)
}

// Children lists the live shares forked from this one, oldest first:
// each with its id, metadata (title, status…), fork cursor and head.
// Needs read.
func (s *Share) Children(ctx context.Context) ([]sharevat.Share, error) {
	fut, release := s.cap.Children(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, fromWire(err)
	}
	l, err := res.Shares()
	if err != nil {
		return nil, err
	}
	return wire.ReadShareInfos(l)
}

// Delete deletes the share: every grant of it dies at once, this
// capability's own included (every live capability of the share answers
// ERevoked from then on, and subscriptions end with code revoked), and
// its log, state and op-id index are removed. Its id is never reused; the
// audit log keeps its records; the shares forked from it live on. Needs
// admin.
func (s *Share) Delete(ctx context.Context) error {
	fut, release := s.cap.Delete(ctx, nil)
	defer release()
	_, err := fut.Struct()
	return fromWire(err)
}

// Settings returns the share's settings: its privacy policy and its
// retention. Needs read.
func (s *Share) Settings(ctx context.Context) (sharevat.Settings, error) {
	fut, release := s.cap.Settings(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Settings{}, fromWire(err)
	}
	src, err := res.Settings()
	if err != nil {
		return sharevat.Settings{}, err
	}
	return wire.ReadSettings(src)
}

// Configure replaces the share's settings and returns them as stored.
// The privacy policy applies to every append from then on; with
// RetainOps or RetainFor set, the server compacts older ops in the
// background (see Compact). To change one setting, read them with
// Settings first. Needs admin.
func (s *Share) Configure(ctx context.Context, set sharevat.Settings) (sharevat.Settings, error) {
	fut, release := s.cap.Configure(ctx, func(p schema.Share_configure_Params) error {
		dst, err := p.NewSettings()
		if err != nil {
			return err
		}
		wire.SetSettings(dst, set)
		return nil
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Settings{}, fromWire(err)
	}
	src, err := res.Settings()
	if err != nil {
		return sharevat.Settings{}, err
	}
	return wire.ReadSettings(src)
}

// Compact drops the ops before cursor before (their bodies and log
// entries) and returns the earliest cursor still readable. The
// materialized state stays exact and the op-id index whole: a late retry
// of a compacted op is still answered duplicate at its original cursor.
// Reads and subscriptions from before the earliest cursor then fail with
// ECompacted, whose message names it: take the snapshot and follow from
// there. Compacting at or before the earliest cursor changes nothing;
// before may be at most head+1 (everything). Needs admin.
func (s *Share) Compact(ctx context.Context, before sharevat.Cursor) (sharevat.Cursor, error) {
	fut, release := s.cap.Compact(ctx, func(p schema.Share_compact_Params) error {
		p.SetBeforeCursor(uint64(before))
		return nil
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return 0, fromWire(err)
	}
	return sharevat.Cursor(res.Earliest()), nil
}

package vat

import (
	"context"

	"sharevat"
	"sharevat/schema"
	"sharevat/wire"
)

// shareServer is the Share capability for one grant.
type shareServer struct{ f *facet }

var _ schema.Share_Server = (*shareServer)(nil)

// Info returns the share's info and the caller's own access. Any valid
// grant may ask.
func (s *shareServer) Info(ctx context.Context, call schema.Share_info) error {
	call.Go()
	return s.f.vat.guard(ctx, "Share.info", func() error {
		sh, g, err := s.f.check(ctx, 0)
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return setAccessInfo(res.NewAccess, res.NewInfo, s.f.access(g), sh)
	})
}

// Update patches the metadata; it needs admin.
func (s *shareServer) Update(ctx context.Context, call schema.Share_update) error {
	return s.f.vat.guard(ctx, "Share.update", func() error {
		if _, _, err := s.f.check(ctx, sharevat.ScopeAdmin); err != nil {
			return err
		}
		src, err := call.Args().Meta()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed meta")
		}
		patch, err := wire.ReadMetaPatch(src)
		if err != nil {
			return err
		}
		sh, err := s.f.vat.store.UpdateMeta(ctx, s.f.share, patch, s.f.vat.now())
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		info, err := res.NewInfo()
		if err != nil {
			return err
		}
		return wire.SetShareInfo(info, sh)
	})
}

// Appender returns an Appender on the same grant; it needs append.
func (s *shareServer) Appender(ctx context.Context, call schema.Share_appender) error {
	return s.f.vat.guard(ctx, "Share.appender", func() error {
		if _, _, err := s.f.check(ctx, sharevat.ScopeAppend); err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return res.SetAppender(schema.Appender_ServerToClient(&appenderServer{s.f}))
	})
}

// Reader returns a Reader on the same grant; it needs read.
func (s *shareServer) Reader(ctx context.Context, call schema.Share_reader) error {
	return s.f.vat.guard(ctx, "Share.reader", func() error {
		if _, _, err := s.f.check(ctx, sharevat.ScopeRead); err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return res.SetReader(schema.Reader_ServerToClient(&readerServer{s.f}))
	})
}

// Grant mints an attenuated token (delegation, a later release).
func (s *shareServer) Grant(ctx context.Context, call schema.Share_grant) error {
	return unimplemented("Share.grant")
}

// Revoke revokes a grant and its subtree (a later release).
func (s *shareServer) Revoke(ctx context.Context, call schema.Share_revoke) error {
	return unimplemented("Share.revoke")
}

// BumpEpoch invalidates every earlier grant (a later release).
func (s *shareServer) BumpEpoch(ctx context.Context, call schema.Share_bumpEpoch) error {
	return unimplemented("Share.bumpEpoch")
}

// Grants lists the delegation tree (a later release).
func (s *shareServer) Grants(ctx context.Context, call schema.Share_grants) error {
	return unimplemented("Share.grants")
}

// Save mints a token for this facet (a later release).
func (s *shareServer) Save(ctx context.Context, call schema.Share_save) error {
	return unimplemented("Share.save")
}

// Fork copies the log up to a cursor into a new share (a later release).
func (s *shareServer) Fork(ctx context.Context, call schema.Share_fork) error {
	return unimplemented("Share.fork")
}

// Children lists forks of this share (a later release).
func (s *shareServer) Children(ctx context.Context, call schema.Share_children) error {
	return unimplemented("Share.children")
}

// Delete deletes the share (a later release).
func (s *shareServer) Delete(ctx context.Context, call schema.Share_delete) error {
	return unimplemented("Share.delete")
}

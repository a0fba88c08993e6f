package vat

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// shareServer is the Share capability for one grant.
type shareServer struct{ f *facet }

var _ schema.Share_Server = (*shareServer)(nil)

// Info returns the share's info and the caller's own access. Any valid
// grant may ask.
func (s *shareServer) Info(ctx context.Context, call schema.Share_info) error {
	call.Go()
	return s.f.run(ctx, "Share.info", 0, func(ctx context.Context) error {
		sh, err := s.f.vat.store.Share(ctx, s.f.share())
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return setAccessInfo(res.NewAccess, res.NewInfo, s.f.access(), sh)
	})
}

// Update patches the metadata; it needs admin.
func (s *shareServer) Update(ctx context.Context, call schema.Share_update) error {
	return s.f.run(ctx, "Share.update", sharevat.ScopeAdmin, func(ctx context.Context) error {
		src, err := call.Args().Meta()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed meta")
		}
		patch, err := wire.ReadMetaPatch(src)
		if err != nil {
			return err
		}
		pol, err := s.f.vat.privacy(ctx, s.f.share())
		if err != nil {
			return err
		}
		if err := guardMeta(pol, &patch); err != nil {
			return err
		}
		sh, err := s.f.vat.store.UpdateMeta(ctx, s.f.share(), patch, s.f.vat.now())
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

// Appender returns an append-only facet on the same grant; it needs append.
func (s *shareServer) Appender(ctx context.Context, call schema.Share_appender) error {
	return s.f.run(ctx, "Share.appender", sharevat.ScopeAppend, func(ctx context.Context) error {
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		app, err := s.f.narrow(sharevat.ScopeAppend | sharevat.ScopeDelegate).appenderClient()
		if err != nil {
			return err
		}
		return res.SetAppender(app)
	})
}

// Reader returns a read-only facet on the same grant; it needs read.
func (s *shareServer) Reader(ctx context.Context, call schema.Share_reader) error {
	return s.f.run(ctx, "Share.reader", sharevat.ScopeRead, func(ctx context.Context) error {
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		rd, err := s.f.narrow(sharevat.ScopeRead | sharevat.ScopeDelegate).readerClient()
		if err != nil {
			return err
		}
		return res.SetReader(rd)
	})
}

package client

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Admin is the server admin capability.
type Admin struct{ cap schema.Admin }

// Release drops the capability.
func (a *Admin) Release() { a.cap.Release() }

// CreateShare creates a share and returns it with its owner token (shown
// once: keep it).
func (a *Admin) CreateShare(ctx context.Context, meta sharevat.MetaPatch) (*Share, sharevat.Minted, error) {
	fut, release := a.cap.CreateShare(ctx, func(p schema.Admin_createShare_Params) error {
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

// createdResults are the results of a call that creates a share and hands
// over its owner capability: Admin.createShare and Share.fork.
type createdResults interface {
	Share() schema.Share
	Owner() (schema.Minted, error)
	Info() (schema.ShareInfo, error)
}

// readCreated decodes a new share's results: its owner capability, owner
// token and info.
func readCreated[R createdResults](res R) (*Share, sharevat.Minted, error) {
	src, err := res.Owner()
	if err != nil {
		return nil, sharevat.Minted{}, err
	}
	m, err := wire.ReadMinted(src)
	if err != nil {
		return nil, m, err
	}
	s := &Share{cap: res.Share().AddRef(), Access: sharevat.Access{GrantID: m.GrantID, Scope: m.Scope, Epoch: 1, ExpiresAt: m.ExpiresAt}}
	info, err := res.Info()
	if err == nil {
		s.Info, err = wire.ReadShareInfo(info)
		s.Access.Epoch = s.Info.Epoch
	}
	if err != nil {
		s.Release()
		return nil, m, err
	}
	return s, m, nil
}

// Share is a live capability on one share, narrowed to its grant's scope.
// Access and Info are as of when it was obtained.
type Share struct {
	cap    schema.Share
	Access sharevat.Access
	Info   sharevat.Share
}

// Release drops the capability.
func (s *Share) Release() { s.cap.Release() }

// Fetch asks for the share's current info and the caller's access, and
// refreshes s.Info and s.Access.
func (s *Share) Fetch(ctx context.Context) (sharevat.Share, sharevat.Access, error) {
	fut, release := s.cap.Info(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Share{}, sharevat.Access{}, fromWire(err)
	}
	if err := readAccessInfo(res.Access, res.Info, &s.Access, &s.Info); err != nil {
		return sharevat.Share{}, sharevat.Access{}, err
	}
	return s.Info, s.Access, nil
}

// Update patches the share's metadata (needs admin).
func (s *Share) Update(ctx context.Context, patch sharevat.MetaPatch) (sharevat.Share, error) {
	fut, release := s.cap.Update(ctx, func(p schema.Share_update_Params) error {
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, patch)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Share{}, fromWire(err)
	}
	info, err := res.Info()
	if err != nil {
		return sharevat.Share{}, err
	}
	return wire.ReadShareInfo(info)
}

// Appender returns the share's Appender (needs append).
func (s *Share) Appender(ctx context.Context) (*Appender, error) {
	fut, release := s.cap.Appender(ctx, nil)
	defer release()
	if _, err := fut.Struct(); err != nil {
		return nil, fromWire(err)
	}
	return &Appender{cap: fut.Appender().AddRef()}, nil
}

// Reader returns the share's Reader (needs read).
func (s *Share) Reader(ctx context.Context) (*Reader, error) {
	fut, release := s.cap.Reader(ctx, nil)
	defer release()
	if _, err := fut.Struct(); err != nil {
		return nil, fromWire(err)
	}
	return &Reader{cap: fut.Reader().AddRef()}, nil
}

// ResetOwner bumps a share's epoch (every earlier token of it dies) and
// returns a new owner token: the way back to a share whose owner token,
// or whose bumpEpoch reply, was lost.
func (a *Admin) ResetOwner(ctx context.Context, share sharevat.ShareID) (sharevat.Minted, sharevat.Epoch, error) {
	fut, release := a.cap.ResetOwner(ctx, func(p schema.Admin_resetOwner_Params) error { return p.SetShareId(string(share)) })
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, 0, fromWire(err)
	}
	m, err := readMinted(res.Owner)
	return m, sharevat.Epoch(res.Epoch()), err
}

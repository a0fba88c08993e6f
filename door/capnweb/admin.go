package capnweb

import (
	"context"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// adminTarget is an Admin: the server admin's (restoreAdmin) or the open
// one (openAdmin).
//
// Methods: createShare(meta) → {share, owner, info}; list(filter) →
// {shares, nextPageToken}; resetOwner(shareId) → {owner, epoch};
// statuses() → ShareStatus[].
type adminTarget struct{ capTarget[schema.Admin] }

func newAdmin(c schema.Admin) *adminTarget { return &adminTarget{capTarget[schema.Admin]{c: c}} }

// Call implements capnweb.Target.
func (t *adminTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	c := newCall(ctx, "Admin", method, args)
	switch method {
	case "createShare":
		return t.createShare(c)
	case "list":
		return t.list(c)
	case "resetOwner":
		return t.resetOwner(c)
	case "statuses":
		fut, rel := t.c.Statuses(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Admin_statuses_Results) (capnweb.Value, error) {
			sts, err := read(r.Statuses, wire.ReadShareStatuses)
			return statusesValue(sts), err
		})
	}
	return notFunction(method)
}

func (t *adminTarget) createShare(c *call) capnweb.Answer {
	meta := c.metaPatch(c.arg(0), "meta")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.CreateShare(c.ctx, func(p schema.Admin_createShare_Params) error {
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, meta)
	})
	return await(fut.Struct, rel, func(r schema.Admin_createShare_Results) (capnweb.Value, error) {
		return newShareResult(r.Share, r.Owner, r.Info)
	})
}

// newShareResult answers {share, owner, info}, the results of
// createShare and fork.
func newShareResult(share func() schema.Share, owner func() (schema.Minted, error), info func() (schema.ShareInfo, error)) (capnweb.Value, error) {
	m, err := read(owner, wire.ReadMinted)
	if err != nil {
		return nil, err
	}
	in, err := read(info, wire.ReadShareInfo)
	if err != nil {
		return nil, err
	}
	return capnweb.NewObject().
		Set("share", newShare(share().AddRef())).
		Set("owner", mintedValue(m)).
		Set("info", shareInfoValue(in)), nil
}

func (t *adminTarget) list(c *call) capnweb.Answer {
	given := !missing(c.arg(0))
	f := c.listFilter(c.arg(0), "filter")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.List(c.ctx, func(p schema.Admin_list_Params) error {
		if !given {
			return nil // a null filter: every live share, the first page
		}
		dst, err := p.NewFilter()
		if err != nil {
			return err
		}
		return wire.SetListFilter(dst, f)
	})
	return await(fut.Struct, rel, func(r schema.Admin_list_Results) (capnweb.Value, error) {
		shares, err := read(r.Shares, wire.ReadShareInfos)
		if err != nil {
			return nil, err
		}
		next, err := r.NextPageToken()
		if err != nil {
			return nil, err
		}
		return capnweb.NewObject().Set("shares", shareInfosValue(shares)).Set("nextPageToken", next), nil
	})
}

func (t *adminTarget) resetOwner(c *call) capnweb.Answer {
	id := c.text(c.arg(0), "shareId")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.ResetOwner(c.ctx, func(p schema.Admin_resetOwner_Params) error { return p.SetShareId(id) })
	return await(fut.Struct, rel, func(r schema.Admin_resetOwner_Results) (capnweb.Value, error) {
		return ownerEpoch(r.Owner, r.Epoch())
	})
}

// ownerEpoch answers {owner, epoch}, the results of resetOwner and
// bumpEpoch.
func ownerEpoch(owner func() (schema.Minted, error), epoch uint64) (capnweb.Value, error) {
	m, err := read(owner, wire.ReadMinted)
	if err != nil {
		return nil, err
	}
	return capnweb.NewObject().Set("owner", mintedValue(m)).Set("epoch", epoch), nil
}

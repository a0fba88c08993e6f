package client

import (
	"context"
	"iter"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// List returns one page of the server's shares that match f, newest
// update first (an append moves a share's update time), then by id, and
// the token of the next page ("" on the last page): pass it back as
// f.PageToken for the next. f.Limit caps the page (0: the server's page
// size, 100; at most 1,000). Every set field of f must match;
// f.WithDeleted lists deleted shares too (Share.Deleted set).
//
// Errors: EInvalid for a page token the server did not make; ERevoked
// when the admin token was rotated; EPermissionDenied for the
// create-only Admin of an open server.
func (a *Admin) List(ctx context.Context, f sharevat.ListFilter) ([]sharevat.Share, string, error) {
	fut, release := a.cap.List(ctx, func(p schema.Admin_list_Params) error {
		dst, err := p.NewFilter()
		if err != nil {
			return err
		}
		return wire.SetListFilter(dst, f)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, "", fromWire(err)
	}
	l, err := res.Shares()
	if err != nil {
		return nil, "", err
	}
	shares, err := wire.ReadShareInfos(l)
	if err != nil {
		return nil, "", err
	}
	next, err := res.NextPageToken()
	return shares, next, err
}

// ListAll yields every share that matches f, page after page (f.Limit
// shares a page), until the last page or the first error, which it
// yields with a zero Share. f.PageToken, if set, is where it starts.
//
//	for sh, err := range admin.ListAll(ctx, sharevat.ListFilter{Status: sharevat.StatusBusy}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(sh.ID, sh.Meta.Title)
//	}
func (a *Admin) ListAll(ctx context.Context, f sharevat.ListFilter) iter.Seq2[sharevat.Share, error] {
	return func(yield func(sharevat.Share, error) bool) {
		for {
			page, next, err := a.List(ctx, f)
			if err != nil {
				yield(sharevat.Share{}, err)
				return
			}
			for _, sh := range page {
				if !yield(sh, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			f.PageToken = next
		}
	}
}

// Statuses returns the status of every live share (its id, title,
// status and when the status last changed), ordered by id: what
// opencode's /session/status answers. A share's status is set with
// Share.Update.
func (a *Admin) Statuses(ctx context.Context) ([]sharevat.ShareStatus, error) {
	fut, release := a.cap.Statuses(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, fromWire(err)
	}
	l, err := res.Statuses()
	if err != nil {
		return nil, err
	}
	return wire.ReadShareStatuses(l)
}

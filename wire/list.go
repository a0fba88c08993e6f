package wire

import (
	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetListFilter writes f into dst. A limit beyond a UInt32 is sent as the
// largest one (the server lowers it to its own maximum anyway).
func SetListFilter(dst schema.ListFilter, f sharevat.ListFilter) error {
	var e errs
	e.do(dst.SetProjectId(f.ProjectID))
	e.do(dst.SetDirectory(f.Directory))
	dst.SetStatus(schema.Status(f.Status))
	e.do(dst.SetParentId(string(f.ParentID)))
	dst.SetLimit(clampU32(f.Limit))
	e.do(dst.SetPageToken(f.PageToken))
	dst.SetWithDeleted(f.WithDeleted)
	return e.err
}

// ReadListFilter decodes a filter. Errors: EInvalid for malformed text or
// a status this version does not know.
func ReadListFilter(src schema.ListFilter) (sharevat.ListFilter, error) {
	var e errs
	f := sharevat.ListFilter{
		ProjectID:   e.text(src.ProjectId),
		Directory:   e.text(src.Directory),
		Status:      sharevat.Status(src.Status()),
		ParentID:    sharevat.ShareID(e.text(src.ParentId)),
		Limit:       int(src.Limit()),
		PageToken:   e.text(src.PageToken),
		WithDeleted: src.WithDeleted(),
	}
	if e.err == nil && f.Status > sharevat.StatusError {
		return f, sharevat.Errorf(sharevat.EInvalid, "unknown status %d in the filter", f.Status)
	}
	return f, invalid("list filter", e.err)
}

// SetShareStatuses fills a new list with statuses.
func SetShareStatuses(newList func(int32) (schema.ShareStatus_List, error), sts []sharevat.ShareStatus) error {
	l, err := newList(int32(len(sts)))
	for i := 0; err == nil && i < len(sts); i++ {
		dst := l.At(i)
		var e errs
		e.do(dst.SetId(string(sts[i].ID)))
		dst.SetStatus(schema.Status(sts[i].Status))
		dst.SetStatusAt(Nanos(sts[i].StatusAt))
		e.do(dst.SetTitle(sts[i].Title))
		err = e.err
	}
	return err
}

// ReadShareStatuses decodes a list of statuses.
func ReadShareStatuses(l schema.ShareStatus_List) ([]sharevat.ShareStatus, error) {
	out := make([]sharevat.ShareStatus, l.Len())
	for i := range out {
		src := l.At(i)
		var e errs
		out[i] = sharevat.ShareStatus{
			ID: sharevat.ShareID(e.text(src.Id)), Status: sharevat.Status(src.Status()),
			StatusAt: Time(src.StatusAt()), Title: e.text(src.Title),
		}
		if e.err != nil {
			return nil, invalid("share status", e.err)
		}
	}
	return out, nil
}

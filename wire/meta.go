package wire

import (
	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetMeta writes m into dst.
func SetMeta(dst schema.Meta, m sharevat.Meta) error {
	var e errs
	e.do(dst.SetTitle(m.Title))
	e.do(dst.SetProjectId(m.ProjectID))
	e.do(dst.SetDirectory(m.Directory))
	e.do(dst.SetVersion(m.Version))
	dst.SetStatus(schema.Status(m.Status))
	dst.SetCreatedAt(Nanos(m.CreatedAt))
	dst.SetUpdatedAt(Nanos(m.UpdatedAt))
	dst.SetStatusAt(Nanos(m.StatusAt))
	return e.err
}

// ReadMeta decodes a full Meta.
func ReadMeta(src schema.Meta) (sharevat.Meta, error) {
	var e errs
	m := sharevat.Meta{
		Title:     e.text(src.Title),
		ProjectID: e.text(src.ProjectId),
		Directory: e.text(src.Directory),
		Version:   e.text(src.Version),
		Status:    sharevat.Status(src.Status()),
		CreatedAt: Time(src.CreatedAt()),
		UpdatedAt: Time(src.UpdatedAt()),
		StatusAt:  Time(src.StatusAt()),
	}
	return m, invalid("meta", e.err)
}

// SetMetaPatch writes p into dst: only the fields p sets are non-null. A
// field set to "" is written as an empty (not null) text, so it reads
// back as "clear it" rather than "not given" (the generated setters write
// null for ""). The indices are Meta's pointer fields in schema order.
func SetMetaPatch(dst schema.Meta, p sharevat.MetaPatch) error {
	var e errs
	for i, v := range []*string{p.Title, p.ProjectID, p.Directory, p.Version} {
		if v != nil {
			e.do(capnp.Struct(dst).SetNewText(uint16(i), *v))
		}
	}
	dst.SetStatus(schema.Status(p.Status))
	return e.err
}

// ReadMetaPatch decodes an update: null text fields are left unset.
func ReadMetaPatch(src schema.Meta) (sharevat.MetaPatch, error) {
	var e errs
	opt := func(has bool, get func() (string, error)) *string {
		if !has {
			return nil
		}
		s := e.text(get)
		return &s
	}
	p := sharevat.MetaPatch{
		Title:     opt(src.HasTitle(), src.Title),
		ProjectID: opt(src.HasProjectId(), src.ProjectId),
		Directory: opt(src.HasDirectory(), src.Directory),
		Version:   opt(src.HasVersion(), src.Version),
		Status:    sharevat.Status(src.Status()),
	}
	return p, invalid("meta", e.err)
}

// SetShareInfo writes the public part of s into dst: not its owner
// grant, its deletion time or its settings.
func SetShareInfo(dst schema.ShareInfo, s sharevat.Share) error {
	var e errs
	e.do(dst.SetId(string(s.ID)))
	dst.SetEpoch(uint64(s.Epoch))
	dst.SetHead(uint64(s.Head))
	e.do(dst.SetParentId(string(s.ParentID)))
	dst.SetForkCursor(uint64(s.ForkCursor))
	dst.SetDeleted(s.Deleted)
	dst.SetEarliest(uint64(s.Earliest))
	m, err := dst.NewMeta()
	e.do(err)
	if err == nil {
		e.do(SetMeta(m, s.Meta))
	}
	return e.err
}

// ReadShareInfo decodes share info into a Share (OwnerRoot, DeletedAt
// and Settings are not on the wire).
func ReadShareInfo(src schema.ShareInfo) (sharevat.Share, error) {
	var e errs
	s := sharevat.Share{
		ID: sharevat.ShareID(e.text(src.Id)), Epoch: sharevat.Epoch(src.Epoch()), Head: sharevat.Cursor(src.Head()),
		ParentID: sharevat.ShareID(e.text(src.ParentId)), ForkCursor: sharevat.Cursor(src.ForkCursor()),
		Deleted: src.Deleted(), Earliest: sharevat.Cursor(src.Earliest()),
	}
	m, err := src.Meta()
	e.do(err)
	if err == nil {
		s.Meta, err = ReadMeta(m)
		e.do(err)
	}
	return s, invalid("share info", e.err)
}

// SetShareInfos fills a list from shares.
func SetShareInfos(newList func(int32) (schema.ShareInfo_List, error), shares []sharevat.Share) error {
	l, err := newList(int32(len(shares)))
	for i := 0; err == nil && i < len(shares); i++ {
		err = SetShareInfo(l.At(i), shares[i])
	}
	return err
}

// ReadShareInfos decodes a list of share infos.
func ReadShareInfos(l schema.ShareInfo_List) ([]sharevat.Share, error) {
	out := make([]sharevat.Share, l.Len())
	for i := range out {
		s, err := ReadShareInfo(l.At(i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

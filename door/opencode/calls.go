package opencode

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// The vat calls the door makes, each on the Vault of one request's peer.
// Every result capability is owned by the caller, who releases it.

// restored is a share restored from a token: its capability and access.
type restored struct {
	share  schema.Share
	access sharevat.Access
	info   sharevat.Share
}

func (r *restored) release() { r.share.Release() }

// restore redeems token (a secret or a slug) for its share.
func restore(ctx context.Context, v schema.Vault, token string) (*restored, error) {
	fut, rel := v.Restore(ctx, func(p schema.Vault_restore_Params) error { return p.SetToken(token) })
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return nil, err
	}
	acc, err := read(res.Access, wire.ReadAccess)
	if err != nil {
		return nil, err
	}
	info, err := read(res.Info, wire.ReadShareInfo)
	if err != nil {
		return nil, err
	}
	return &restored{share: res.Share().AddRef(), access: acc, info: info}, nil
}

// created is a new share: its id and owner token.
type created struct {
	id    sharevat.ShareID
	owner string
	share schema.Share
}

// createShare creates a share titled title through admin.
func createShare(ctx context.Context, admin schema.Admin, title string) (*created, error) {
	fut, rel := admin.CreateShare(ctx, func(p schema.Admin_createShare_Params) error {
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, sharevat.MetaPatch{Title: &title})
	})
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return nil, err
	}
	m, err := read(res.Owner, wire.ReadMinted)
	if err != nil {
		return nil, err
	}
	info, err := read(res.Info, wire.ReadShareInfo)
	if err != nil {
		return nil, err
	}
	return &created{id: info.ID, owner: m.Token, share: res.Share().AddRef()}, nil
}

// grantLink mints the read-only link grant of a share.
func grantLink(ctx context.Context, sh schema.Share) (string, error) {
	fut, rel := sh.Grant(ctx, func(p schema.Share_grant_Params) error {
		s, err := p.NewScope()
		if err != nil {
			return err
		}
		wire.SetScope(s, sharevat.ScopeRead)
		return p.SetLabel(linkLabel)
	})
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return "", err
	}
	m, err := read(res.Minted, wire.ReadMinted)
	return m.Token, err
}

// linkLabel is the label of the link grant, as `sharevat grants` lists it.
const linkLabel = "opencode link"

// appendBatch appends b through a new Appender of sh.
func appendBatch(ctx context.Context, sh schema.Share, b *sharevat.Batch) (sharevat.Ack, error) {
	afut, arel := sh.Appender(ctx, nil)
	defer arel()
	app := afut.Appender()
	fut, rel := app.Append(ctx, func(p schema.Appender_append_Params) error {
		dst, err := p.NewBatch()
		if err != nil {
			return err
		}
		return wire.SetBatch(dst, b)
	})
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Ack{}, err
	}
	return read(res.Ack, wire.ReadAck)
}

// readAfter reads r's log after cursor from, page by page, calling fn
// with each entry in order and stopping at its first error; it returns
// the cursor of the last entry read (from when there was none).
func readAfter(ctx context.Context, r schema.Reader, from uint64, fn func(sharevat.Entry) error) (uint64, error) {
	for {
		fut, rel := r.Read(ctx, func(p schema.Reader_read_Params) error {
			p.SetFromCursor(from)
			return nil
		})
		res, err := fut.Struct()
		if err != nil {
			rel()
			return 0, err
		}
		ents, err := read(res.Ops, wire.ReadEntries)
		head := res.Head()
		rel()
		if err != nil {
			return 0, err
		}
		for _, e := range ents {
			if err := fn(e); err != nil {
				return 0, err
			}
		}
		if len(ents) == 0 {
			return from, nil
		}
		from = uint64(ents[len(ents)-1].Cursor)
		if from >= head {
			return from, nil
		}
	}
}

// deleteShare deletes sh (needs admin: the owner token).
func deleteShare(ctx context.Context, sh schema.Share) error {
	fut, rel := sh.Delete(ctx, nil)
	defer rel()
	_, err := fut.Struct()
	return err
}

func read[S, D any](get func() (S, error), conv func(S) (D, error)) (D, error) {
	s, err := get()
	if err != nil {
		var zero D
		return zero, err
	}
	return conv(s)
}

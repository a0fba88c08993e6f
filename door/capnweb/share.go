package capnweb

import (
	"context"
	"math"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// shareTarget is a Share, narrowed by the vat to its grant's scope.
//
// Methods: info() → {info, access}; update(meta) → ShareInfo;
// appender() → Appender; reader() → Reader; grant(scope, ttlSeconds,
// label) → Minted; revoke(grantId); bumpEpoch() → {owner, epoch};
// grants() → GrantInfo[]; save(ttlSeconds, label) → Minted;
// fork(atCursor, meta) → {share, owner, info}; children() →
// ShareInfo[]; delete(); settings() → Settings; configure(settings) →
// Settings; compact(beforeCursor) → number.
type shareTarget struct{ capTarget[schema.Share] }

func newShare(c schema.Share) *shareTarget { return &shareTarget{capTarget[schema.Share]{c: c}} }

// Call implements capnweb.Target.
func (t *shareTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	c := newCall(ctx, "Share", method, args)
	switch method {
	case "info":
		return t.info(c)
	case "update":
		return t.update(c)
	case "appender":
		fut, rel := t.c.Appender(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_appender_Results) (capnweb.Value, error) {
			return newAppender(r.Appender().AddRef()), nil
		})
	case "reader":
		fut, rel := t.c.Reader(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_reader_Results) (capnweb.Value, error) {
			return newReader(r.Reader().AddRef()), nil
		})
	case "grant":
		return t.grant(c)
	case "revoke":
		return t.revoke(c)
	case "bumpEpoch":
		fut, rel := t.c.BumpEpoch(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_bumpEpoch_Results) (capnweb.Value, error) {
			return ownerEpoch(r.Owner, r.Epoch())
		})
	case "grants":
		fut, rel := t.c.Grants(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_grants_Results) (capnweb.Value, error) {
			g, err := read(r.Grants, wire.ReadGrantInfos)
			return grantsValue(g), err
		})
	case "save":
		return t.save(c)
	}
	return t.lifecycle(c, method)
}

// lifecycle serves the methods of a share's life: fork, children,
// delete, settings, configure, compact.
func (t *shareTarget) lifecycle(c *call, method string) capnweb.Answer {
	switch method {
	case "fork":
		return t.fork(c)
	case "children":
		fut, rel := t.c.Children(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_children_Results) (capnweb.Value, error) {
			shares, err := read(r.Shares, wire.ReadShareInfos)
			return shareInfosValue(shares), err
		})
	case "delete":
		fut, rel := t.c.Delete(c.ctx, nil)
		return await(fut.Struct, rel, none)
	case "settings":
		fut, rel := t.c.Settings(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Share_settings_Results) (capnweb.Value, error) {
			s, err := read(r.Settings, wire.ReadSettings)
			return settingsValue(s), err
		})
	case "configure":
		return t.configure(c)
	case "compact":
		return t.compact(c)
	}
	return notFunction(method)
}

func (t *shareTarget) info(c *call) capnweb.Answer {
	fut, rel := t.c.Info(c.ctx, nil)
	return await(fut.Struct, rel, func(r schema.Share_info_Results) (capnweb.Value, error) {
		info, err := read(r.Info, wire.ReadShareInfo)
		if err != nil {
			return nil, err
		}
		acc, err := read(r.Access, wire.ReadAccess)
		if err != nil {
			return nil, err
		}
		return capnweb.NewObject().Set("info", shareInfoValue(info)).Set("access", accessValue(acc)), nil
	})
}

func (t *shareTarget) update(c *call) capnweb.Answer {
	meta := c.metaPatch(c.arg(0), "meta")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Update(c.ctx, func(p schema.Share_update_Params) error {
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, meta)
	})
	return await(fut.Struct, rel, func(r schema.Share_update_Results) (capnweb.Value, error) {
		info, err := read(r.Info, wire.ReadShareInfo)
		return shareInfoValue(info), err
	})
}

func (t *shareTarget) grant(c *call) capnweb.Answer {
	scope := c.scope(c.arg(0), "scope")
	ttl := c.i64(c.arg(1), "ttlSeconds")
	label := c.text(c.arg(2), "label")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Grant(c.ctx, func(p schema.Share_grant_Params) error {
		sc, err := p.NewScope()
		if err != nil {
			return err
		}
		wire.SetScope(sc, scope)
		p.SetTtlSeconds(ttl)
		return p.SetLabel(label)
	})
	return await(fut.Struct, rel, func(r schema.Share_grant_Results) (capnweb.Value, error) {
		return mintedResult(r.Minted)
	})
}

// mintedResult answers a Minted, the result of grant and every save.
func mintedResult(get func() (schema.Minted, error)) (capnweb.Value, error) {
	m, err := read(get, wire.ReadMinted)
	if err != nil {
		return nil, err
	}
	return mintedValue(m), nil
}

func (t *shareTarget) revoke(c *call) capnweb.Answer {
	id := c.text(c.arg(0), "grantId")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Revoke(c.ctx, func(p schema.Share_revoke_Params) error { return p.SetGrantId(id) })
	return await(fut.Struct, rel, none)
}

func (t *shareTarget) save(c *call) capnweb.Answer {
	ttl, label := c.i64(c.arg(0), "ttlSeconds"), c.text(c.arg(1), "label")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Save(c.ctx, func(p schema.Share_save_Params) error {
		p.SetTtlSeconds(ttl)
		return p.SetLabel(label)
	})
	return await(fut.Struct, rel, func(r schema.Share_save_Results) (capnweb.Value, error) {
		return mintedResult(r.Minted)
	})
}

func (t *shareTarget) fork(c *call) capnweb.Answer {
	at := c.u64(c.arg(0), "atCursor", math.MaxUint64)
	meta := c.metaPatch(c.arg(1), "meta")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Fork(c.ctx, func(p schema.Share_fork_Params) error {
		p.SetAtCursor(at)
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, meta)
	})
	return await(fut.Struct, rel, func(r schema.Share_fork_Results) (capnweb.Value, error) {
		return newShareResult(r.Share, r.Owner, r.Info)
	})
}

func (t *shareTarget) configure(c *call) capnweb.Answer {
	set := c.settings(c.arg(0), "settings")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Configure(c.ctx, func(p schema.Share_configure_Params) error {
		s, err := p.NewSettings()
		if err != nil {
			return err
		}
		set(s)
		return nil
	})
	return await(fut.Struct, rel, func(r schema.Share_configure_Results) (capnweb.Value, error) {
		s, err := read(r.Settings, wire.ReadSettings)
		return settingsValue(s), err
	})
}

func (t *shareTarget) compact(c *call) capnweb.Answer {
	before := c.u64(c.arg(0), "beforeCursor", math.MaxUint64)
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Compact(c.ctx, func(p schema.Share_compact_Params) error {
		p.SetBeforeCursor(before)
		return nil
	})
	return await(fut.Struct, rel, func(r schema.Share_compact_Results) (capnweb.Value, error) {
		return r.Earliest(), nil
	})
}

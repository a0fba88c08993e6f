package vat

import (
	"context"
	"fmt"
	"sync"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// settingsCache keeps each share's settings in memory, so that the
// append path learns the privacy policy without a read transaction.
//
// A miss reads the store; configure writes the store and then the
// cache; delete drops the entry. fill serializes misses with configure
// and delete, holding fill across the store I/O (as the registry's loadMu
// does for revocations), so that a miss that read the store before a
// configure committed cannot install the old settings after it. The map
// itself is guarded by mu, held only for map access.
type settingsCache struct {
	fill sync.Mutex
	mu   sync.RWMutex
	m    map[sharevat.ShareID]sharevat.Settings
}

func newSettingsCache() *settingsCache {
	return &settingsCache{m: make(map[sharevat.ShareID]sharevat.Settings)}
}

func (c *settingsCache) lookup(id sharevat.ShareID) (sharevat.Settings, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.m[id]
	return s, ok
}

func (c *settingsCache) put(id sharevat.ShareID, s sharevat.Settings) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[id] = s
}

// drop forgets a share (deleted). Callers hold fill.
func (c *settingsCache) drop(id sharevat.ShareID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// shareSettings returns a share's settings, from the cache or the store.
// Errors: ENotFound for an unknown or deleted share.
func (v *Vat) shareSettings(ctx context.Context, id sharevat.ShareID) (sharevat.Settings, error) {
	c := v.settings
	if v.unsynced() { // another vat may have changed them: changes.go
		return v.store.Settings(ctx, id)
	}
	if s, ok := c.lookup(id); ok {
		return s, nil
	}
	c.fill.Lock()
	defer c.fill.Unlock()
	if s, ok := c.lookup(id); ok {
		return s, nil
	}
	s, err := v.store.Settings(ctx, id)
	if err != nil {
		return s, err
	}
	c.put(id, s)
	return s, nil
}

// privacy returns the privacy policy the append path applies to a
// share's ops (AppendRequest.Privacy); it costs a map lookup once the
// share's settings are cached, and Share.configure changes it for every
// append that starts after configure answers.
func (v *Vat) privacy(ctx context.Context, id sharevat.ShareID) (sharevat.Privacy, error) {
	s, err := v.shareSettings(ctx, id)
	return s.Privacy, err
}

// configure replaces a share's settings in the store and then in the
// cache, and returns them as stored.
func (v *Vat) configure(ctx context.Context, id sharevat.ShareID, set sharevat.Settings) (sharevat.Settings, error) {
	c := v.settings
	c.fill.Lock()
	defer c.fill.Unlock()
	got, err := v.store.PutSettings(ctx, id, set)
	if err != nil {
		return got, fmt.Errorf("configure: %w", err)
	}
	c.put(id, got)
	return got, nil
}

// Settings answers the share's settings; it needs read.
func (s *shareServer) Settings(ctx context.Context, call schema.Share_settings) error {
	call.Go()
	return s.f.run(ctx, "Share.settings", sharevat.ScopeRead, func(ctx context.Context) error {
		set, err := s.f.vat.shareSettings(ctx, s.f.share())
		if err != nil {
			return err
		}
		return setSettings(call.AllocResults, set)
	})
}

// Configure replaces the share's settings; it needs admin. A retention
// set here is applied by the background job (retention.go), which it
// wakes.
func (s *shareServer) Configure(ctx context.Context, call schema.Share_configure) error {
	return s.f.run(ctx, "Share.configure", sharevat.ScopeAdmin, func(ctx context.Context) error {
		src, err := call.Args().Settings()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed settings")
		}
		set, err := wire.ReadSettings(src)
		if err != nil {
			return err
		}
		v := s.f.vat
		if set, err = v.configure(ctx, s.f.share(), set); err != nil {
			return err
		}
		v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditConfigure, ShareID: s.f.share(), GrantID: s.f.lg.g.ID,
			Scope: s.f.rights, Epoch: s.f.lg.g.Epoch, Peer: s.f.peer, Result: "ok"})
		if set.RetainOps > 0 || set.RetainFor > 0 {
			v.retention.wake()
		}
		return setSettings(call.AllocResults, set)
	})
}

type settingsResults interface {
	NewSettings() (schema.Settings, error)
}

func setSettings[R settingsResults](alloc func() (R, error), set sharevat.Settings) error {
	res, err := alloc()
	if err != nil {
		return err
	}
	dst, err := res.NewSettings()
	if err != nil {
		return err
	}
	wire.SetSettings(dst, set)
	return nil
}

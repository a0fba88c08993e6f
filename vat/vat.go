package vat

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
)

// Config configures a Vat. Store and Verifier are required.
type Config struct {
	Store    sharevat.Store
	Verifier *sturdyref.Verifier
	Limits   sharevat.Limits  // zero: sharevat.DefaultLimits()
	Now      func() time.Time // zero: time.Now
	Rand     io.Reader        // zero: crypto/rand.Reader
	Logger   *slog.Logger     // zero: discard
	// Open lets any connected client create shares (Vault.openAdmin).
	Open bool
	// MaxReadOps caps Reader.read's limit; zero: 1000.
	MaxReadOps int
	// ReadBudget caps the bytes of one read or snapshot answer, so it
	// fits one WebSocket frame; zero: 8 MiB.
	ReadBudget int
	// Observer receives events for metrics; zero: none.
	Observer Observer
	// MaxConnCapabilities caps the live capability objects (Admin, Share,
	// Appender, Reader) one connection holds; the call that would hand
	// out one more answers tooLarge until the client releases some. Zero:
	// 10,000 (DefaultMaxConnCapabilities); negative: unlimited.
	MaxConnCapabilities int
	// Quotas bound what one connection, grant or share may hold in
	// subscriptions and pushes (quotas.go); zero fields take defaults.
	Quotas Quotas
	// MaxChildGrants caps the live (neither revoked nor expired) grants
	// minted directly from one grant, by Share.grant and every save; the
	// mint that would exceed it answers tooLarge until some are revoked
	// or expire. Share owner grants, created by the server admin, are
	// not counted. Zero: 1,000 (DefaultMaxChildGrants); negative:
	// unlimited.
	MaxChildGrants int
	// MaxForks caps the live shares forked directly from one share; the
	// fork that would exceed it answers tooLarge until some are deleted.
	// Zero: 1,000 (DefaultMaxForks); negative: unlimited.
	MaxForks int
	// MaxForkDepth caps a chain of forks (a fork of a fork of …): a share
	// that many forks deep cannot be forked. Zero: 64
	// (DefaultMaxForkDepth); negative: unlimited.
	MaxForkDepth int
	// MaxTreeForks caps the live forks of one fork tree (a share that was
	// not forked and every share forked from it, at any depth), so no
	// holder can grow the disk by forking forks. Zero: 100
	// (DefaultMaxTreeForks); negative: unlimited.
	MaxTreeForks int
	// MaxTreeForkBytes caps the bytes one fork tree's live forks copied
	// when they were made (sharevat.ForkQuota). Zero: 256 MiB
	// (DefaultMaxTreeForkBytes); negative: unlimited.
	MaxTreeForkBytes int64
	// Retention configures the background compaction of shares whose
	// settings retain only recent ops (retention.go); zero fields take
	// defaults.
	Retention Retention
}

// Vat serves the capability graph over whatever transport hands it
// connections (see Bootstrap).
type Vat struct {
	cfg   Config
	store sharevat.Store
	log   *slog.Logger
	reg   *registry
	hub   *hub // live subscriptions (hub.go)
	obs   Observer
	caps  liveCaps
	// auditor writes audit records in batches (auditlog.go).
	auditor *auditWriter
	// redeems thins the redeem records (auditredeem.go).
	redeems redeemAudit
	// settings caches each share's settings for the append path
	// (settings.go).
	settings *settingsCache
	// retention compacts shares in the background (retention.go).
	retention *retainer
	// creates counts the shares of each creation token (creator.go).
	creates createWindow
	// byteCounts count the bytes of shares with a byte limit, and limits
	// cache each share's limit (sharebytes.go).
	byteCounts byteCounts
	limitsMu   sync.RWMutex
	limits     map[sharevat.ShareID]int64
	// changes follows a store shared with other vats (changes.go); nil
	// for a store only this vat writes.
	changes *changeFollower
}

// New checks cfg and returns a Vat. It starts the retention job's
// goroutine (Config.Retention): call Close to stop it.
func New(cfg Config) (*Vat, error) {
	if cfg.Store == nil || cfg.Verifier == nil {
		return nil, fmt.Errorf("vat: Store and Verifier are required")
	}
	if cfg.Limits == (sharevat.Limits{}) {
		cfg.Limits = sharevat.DefaultLimits()
	}
	if err := cfg.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("vat: limits: %w", err)
	}
	setDefaults(&cfg)
	cfg.Quotas = cfg.Quotas.withDefaults(cfg.Limits)
	v := &Vat{cfg: cfg, store: cfg.Store, log: cfg.Logger, hub: newHub(cfg.Quotas)}
	v.auditor = &auditWriter{store: cfg.Store, log: cfg.Logger, urgent: make(chan struct{}, 1)}
	v.reg = newRegistry(v)
	v.obs = cfg.Observer
	if v.obs == nil {
		v.obs = nopObserver{}
	}
	v.settings = newSettingsCache()
	v.startRetention()
	v.startChanges()
	return v, nil
}

func setDefaults(cfg *Config) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxReadOps <= 0 {
		cfg.MaxReadOps = 1000
	}
	if cfg.ReadBudget <= 0 {
		cfg.ReadBudget = 8 << 20
	}
	if cfg.MaxChildGrants == 0 {
		cfg.MaxChildGrants = DefaultMaxChildGrants
	}
	if cfg.MaxForks == 0 {
		cfg.MaxForks = DefaultMaxForks
	}
	if cfg.MaxForkDepth == 0 {
		cfg.MaxForkDepth = DefaultMaxForkDepth
	}
	if cfg.MaxTreeForks == 0 {
		cfg.MaxTreeForks = DefaultMaxTreeForks
	}
	if cfg.MaxTreeForkBytes == 0 {
		cfg.MaxTreeForkBytes = DefaultMaxTreeForkBytes
	}
	cfg.Retention = cfg.Retention.withDefaults()
}

// Bootstrap returns the Vault capability for a new connection from peer
// (its remote address, recorded in grants and the audit log). Call it
// once per connection: everything obtained through the Vault counts
// against that connection's limits. The caller owns the returned client
// and must release it.
func (v *Vat) Bootstrap(peer string) capnp.Client { return v.BootstrapMetered(peer, nil) }

// BootstrapMetered is Bootstrap for a connection whose transport counts
// the memory held for it: the read and snapshot answers the vat builds are
// charged to meter while they are built (nil: not counted).
func (v *Vat) BootstrapMetered(peer string, meter Meter) capnp.Client {
	conn := v.newPeerConn(peer, meter)
	srv := &vault{vat: v, peer: peer, conn: conn}
	return guarded(schema.Vault_Methods(nil, srv), srv, v.log)
}

// now returns the vat's current time in UTC.
func (v *Vat) now() time.Time { return v.cfg.Now().UTC() }

// MintAdminToken mints a new server admin grant and returns its token,
// revoking every earlier admin grant first, so at most one admin token is
// ever valid. The serve command calls it when <data>/admin.token is
// missing (first start, or an operator deleted it to rotate).
func (v *Vat) MintAdminToken(ctx context.Context) (sharevat.Minted, error) {
	old, err := v.store.Grants(ctx, "")
	if err != nil {
		return sharevat.Minted{}, fmt.Errorf("admin token: %w", err)
	}
	if ids := liveIDs(old); len(ids) > 0 {
		if err := v.reg.revoke(ctx, ids); err != nil {
			return sharevat.Minted{}, fmt.Errorf("admin token: revoke old: %w", err)
		}
	}
	g, m, err := v.newGrant("", "", sharevat.ScopeOwner, 0, time.Time{}, "admin", "local")
	if err != nil {
		return sharevat.Minted{}, err
	}
	if err := v.store.CreateGrant(ctx, g); err != nil {
		return sharevat.Minted{}, fmt.Errorf("admin token: %w", err)
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditMint, GrantID: g.ID, Scope: g.Scope, Peer: "local", Result: "ok"})
	return m, nil
}

func liveIDs(grants []sharevat.Grant) []sharevat.GrantID {
	var ids []sharevat.GrantID
	for _, g := range grants {
		if !g.Revoked {
			ids = append(ids, g.ID)
		}
	}
	return ids
}

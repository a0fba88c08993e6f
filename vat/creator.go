package vat

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
)

// A creation token is an attenuation of the server admin right that may
// only create shares (docs/opencode.md, "Creation tokens"): an admin-side
// grant (no share) with the scope CreatorScope, minted under the admin
// grant (so rotating the admin token revokes it too), redeemed with
// Vault.restoreAdmin like the admin token. Its Admin answers
// permissionDenied to everything but createShare, and createShare counts
// against the token's hourly quota. Its quotas live in its label
// (creatorLabel), which the vat writes and parses; nothing else does.

// CreatorScope is the scope of a creation token: an admin-side grant
// whose only right is to create shares.
const CreatorScope = sharevat.ScopeAppend

// CreateQuota bounds what one creation token may create.
type CreateQuota struct {
	SharesPerHour int   // shares created in any hour; 0: unlimited
	BytesPerShare int64 // op bytes one share made with it may hold (Share.MaxBytes, enforced by the vat on every append); 0: unlimited
}

// CreateToken is a creation token as listed: its grant and its quota.
type CreateToken struct {
	Grant sharevat.Grant
	Name  string
	Quota CreateQuota
}

// creatorLabelPrefix starts the label of every creation token.
const creatorLabelPrefix = "create-only"

// creatorLabel encodes a creation token's name and quota in its label.
func creatorLabel(name string, q CreateQuota) string {
	return fmt.Sprintf("%s shares/h=%d bytes/share=%d %s", creatorLabelPrefix, q.SharesPerHour, q.BytesPerShare, name)
}

// maxCreatorName bounds a creation token's name: its label (the name
// and the quotas) stays within a grant label's limit.
const maxCreatorName = 160

// checkCreatorName refuses a name over maxCreatorName bytes (ETooLarge)
// or with a character that does not print (EInvalid): it is shown in
// every listing, and a control or bidi character would garble it there.
func checkCreatorName(name string) error {
	if len(name) > maxCreatorName {
		return sharevat.Errorf(sharevat.ETooLarge, "the name is %d bytes; limit is %d", len(name), maxCreatorName)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r) {
			return sharevat.Errorf(sharevat.EInvalid, "the name holds a character that does not print")
		}
	}
	return nil
}

// parseCreatorLabel decodes creatorLabel; ok is false for any other label.
func parseCreatorLabel(label string) (name string, q CreateQuota, ok bool) {
	f := strings.SplitN(label, " ", 4)
	if len(f) < 3 || f[0] != creatorLabelPrefix {
		return "", q, false
	}
	n, err1 := strconv.Atoi(strings.TrimPrefix(f[1], "shares/h="))
	b, err2 := strconv.ParseInt(strings.TrimPrefix(f[2], "bytes/share="), 10, 64)
	if err1 != nil || err2 != nil || n < 0 || b < 0 {
		return "", q, false
	}
	if len(f) == 4 {
		name = f[3]
	}
	return name, CreateQuota{SharesPerHour: n, BytesPerShare: b}, true
}

// isCreator reports whether g is a creation token.
func isCreator(g *sharevat.Grant) bool { return g.IsAdmin() && g.Scope == CreatorScope }

// OpenCreator returns a create-only Admin for peer without any token: the
// Admin Vault.openAdmin hands out on an --open server, for a door the
// operator opened for creating alone (serve --opencode-open, loopback
// only). The caller releases it.
func (v *Vat) OpenCreator(peer string) (schema.Admin, error) {
	a := &adminServer{vat: v, peer: peer, conn: v.newPeerConn(peer, nil)}
	return a.client()
}

// redeemAdmin redeems a full admin token (not a creation token) for a
// call made through the vat's Go API on behalf of peer.
func (v *Vat) redeemAdmin(ctx context.Context, token, peer string) (*liveGrant, error) {
	s := &vault{vat: v, peer: peer, conn: v.newPeerConn(peer, nil)}
	lg, err := s.redeem(ctx, func() (string, error) { return token, nil }, true)
	if err != nil {
		return nil, err
	}
	if isCreator(&lg.g) {
		return nil, errRedeem
	}
	return lg, nil
}

// RedeemAdminToken checks that token is the live server admin token (a
// creation token is refused), as Vault.restoreAdmin redeems it and with
// its audit record; any refusal is unauthorized. For routes that take
// the admin token themselves (GET /backup, the creation-token API).
func (v *Vat) RedeemAdminToken(ctx context.Context, token, peer string) error {
	_, err := v.redeemAdmin(ctx, token, peer)
	return err
}

// MintCreateToken mints a creation token named name with quota q, for the
// holder of the admin token adminToken. Errors: unauthorized for a token
// that is not the live admin token; invalid for a negative quota.
func (v *Vat) MintCreateToken(ctx context.Context, adminToken, peer, name string, q CreateQuota) (sharevat.Minted, error) {
	lg, err := v.redeemAdmin(ctx, adminToken, peer)
	if err != nil {
		return sharevat.Minted{}, err
	}
	if q.SharesPerHour < 0 || q.BytesPerShare < 0 {
		return sharevat.Minted{}, sharevat.Errorf(sharevat.EInvalid, "quotas must not be negative")
	}
	name = strings.Join(strings.Fields(name), " ")
	if err := checkCreatorName(name); err != nil {
		return sharevat.Minted{}, err
	}
	g, m, err := v.newGrant("", lg.g.ID, CreatorScope, 0, time.Time{}, creatorLabel(name, q), peer)
	if err != nil {
		return sharevat.Minted{}, err
	}
	if err := v.store.CreateGrant(ctx, g); err != nil {
		return sharevat.Minted{}, fmt.Errorf("creation token: %w", err)
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditMint, GrantID: g.ID, Parent: g.Parent, Scope: g.Scope, Peer: peer, Result: "ok"})
	return m, nil
}

// CreateTokens lists every creation token, live or not, for the holder of
// the admin token.
func (v *Vat) CreateTokens(ctx context.Context, adminToken, peer string) ([]CreateToken, error) {
	if _, err := v.redeemAdmin(ctx, adminToken, peer); err != nil {
		return nil, err
	}
	gs, err := v.store.Grants(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []CreateToken
	for _, g := range gs {
		if name, q, ok := parseCreatorLabel(g.Label); ok && isCreator(&g) {
			g.Verifier = nil
			out = append(out, CreateToken{Grant: g, Name: name, Quota: q})
		}
	}
	return out, nil
}

// RevokeCreateToken revokes the creation token id for the holder of the
// admin token: its next use is refused and its live Admins end at once.
// Errors: notFound for an id that is not a creation token.
func (v *Vat) RevokeCreateToken(ctx context.Context, adminToken, peer string, id sharevat.GrantID) error {
	if _, err := v.redeemAdmin(ctx, adminToken, peer); err != nil {
		return err
	}
	lg, err := v.reg.get(ctx, id)
	if err != nil || !isCreator(&lg.g) {
		if err == nil || sharevat.ErrorCode(err) != sharevat.EUnavailable {
			return sharevat.Errorf(sharevat.ENotFound, "no live creation token %s", quoteID(string(id)))
		}
		return err
	}
	if err := v.reg.revoke(ctx, []sharevat.GrantID{id}); err != nil {
		return err
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditRevoke, GrantID: id, Parent: lg.g.Parent, Scope: lg.g.Scope, Peer: peer, Result: "ok"})
	return nil
}

// CreateQuotaOf returns the quota of the live creation token token;
// ok is false for any other token.
func (v *Vat) CreateQuotaOf(ctx context.Context, token string) (sharevat.GrantID, CreateQuota, bool) {
	tok, err := sturdyref.Parse(token)
	if err != nil {
		return "", CreateQuota{}, false
	}
	lg, err := v.reg.get(ctx, tok.GrantID)
	if err != nil || !isCreator(&lg.g) || !v.cfg.Verifier.Verify(tok, lg.g.Verifier) {
		return "", CreateQuota{}, false
	}
	_, q, ok := parseCreatorLabel(lg.g.Label)
	return lg.g.ID, q, ok
}

// createWindow counts the shares each creation token created in the last
// hour, in this vat process (a restart starts the count anew).
type createWindow struct {
	mu   sync.Mutex
	seen map[sharevat.GrantID][]time.Time
}

// take records one more share for id at now unless that would pass
// limit shares in the hour before now.
func (w *createWindow) take(id sharevat.GrantID, limit int, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[sharevat.GrantID][]time.Time{}
	}
	ts := w.seen[id]
	keep := ts[:0]
	for _, t := range ts {
		if now.Sub(t) < time.Hour {
			keep = append(keep, t)
		}
	}
	if limit > 0 && len(keep) >= limit {
		w.seen[id] = keep
		return false
	}
	w.seen[id] = append(keep, now)
	return true
}

// bytesPerShare is the byte limit of a share this Admin creates: its
// creation token's bytes per share, else none.
func (a *adminServer) bytesPerShare() int64 {
	if a.lg == nil || !isCreator(&a.lg.g) {
		return 0
	}
	_, q, _ := parseCreatorLabel(a.lg.g.Label)
	return q.BytesPerShare
}

// checkCreator refuses a creation token's create past its hourly quota.
func (a *adminServer) checkCreator() error {
	if a.lg == nil || !isCreator(&a.lg.g) {
		return nil
	}
	_, q, _ := parseCreatorLabel(a.lg.g.Label)
	if !a.vat.creates.take(a.lg.g.ID, q.SharesPerHour, a.vat.now()) {
		return sharevat.Errorf(sharevat.ETooLarge, "this creation token created its %d shares of the hour; try again later", q.SharesPerHour)
	}
	return nil
}

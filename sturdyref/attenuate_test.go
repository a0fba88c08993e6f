package sturdyref_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

func TestAttenuate(t *testing.T) {
	const (
		r     = sharevat.ScopeRead
		a     = sharevat.ScopeAppend
		d     = sharevat.ScopeDelegate
		adm   = sharevat.ScopeAdmin
		owner = sharevat.ScopeOwner
	)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	never := time.Time{}
	inHour := now.Add(time.Hour)
	tests := []struct {
		name         string
		parent       sharevat.Scope
		parentExpiry time.Time
		want         sharevat.Scope
		ttl          time.Duration
		wantExpiry   time.Time
		wantCode     sharevat.Code
		wantMsg      string // a piece the message must hold
	}{
		{"owner mints read forever", owner, never, r, 0, never, "", ""},
		{"owner mints owner", owner, never, owner, 0, never, "", ""},
		{"same scope", r | a | d, never, r | a | d, 0, never, "", ""},
		{"ttl from never", owner, never, r, time.Hour, inHour, "", ""},
		{"ttl inherits parent expiry", r | d, inHour, r, 0, inHour, "", ""},
		{"ttl inside parent expiry", r | d, inHour, r, time.Minute, now.Add(time.Minute), "", ""},
		{"ttl exactly parent expiry", r | d, inHour, r, time.Hour, inHour, "", ""},
		{"ttl past parent expiry", r | d, inHour, r, time.Hour + time.Nanosecond, never, sharevat.EPermissionDenied, "later than the parent's"},
		{"no delegate", r | a, never, r, 0, never, sharevat.EPermissionDenied, "delegate"},
		{"broader", r | a | d, never, r | a | adm, 0, never, sharevat.EPermissionDenied, "scope read,append,admin is broader than read,append,delegate (missing admin)"},
		{"broader by two", r | d, never, owner, 0, never, sharevat.EPermissionDenied, "missing append,admin"},
		{"empty scope", owner, never, 0, 0, never, sharevat.EInvalid, "empty"},
		{"unknown right", owner, never, r | 1<<6, 0, never, sharevat.EInvalid, "unknown"},
		{"negative ttl", owner, never, r, -time.Second, never, sharevat.EInvalid, "negative"},
		{"expired parent", owner, now.Add(-time.Second), r, 0, never, sharevat.ERevoked, "expired"},
		{"parent expires right now", owner, now, r, 0, never, sharevat.ERevoked, "expired"},
		{"expired parent without delegate", r, now.Add(-time.Second), r, 0, never, sharevat.ERevoked, ""},
		{"no delegate and empty scope", r, never, 0, 0, never, sharevat.EPermissionDenied, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sturdyref.Attenuate(tc.parent, tc.parentExpiry, tc.want, tc.ttl, now)
			if code := sharevat.ErrorCode(err); code != tc.wantCode {
				t.Fatalf("Attenuate error = %v, want code %q", err, tc.wantCode)
			}
			if msg := sharevat.ErrorMessage(err); !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("message %q, want it to hold %q", msg, tc.wantMsg)
			}
			if !got.Equal(tc.wantExpiry) {
				t.Errorf("expiry = %v, want %v", got, tc.wantExpiry)
			}
		})
	}
}

// TestAttenuateChain: expiries only shrink down a chain of inheriting mints.
func TestAttenuateChain(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	scope, expiry := sharevat.ScopeOwner, time.Time{}
	for _, ttl := range []time.Duration{24 * time.Hour, 0, time.Hour, 0, 0} {
		next, err := sturdyref.Attenuate(scope, expiry, sharevat.ScopeRead|sharevat.ScopeDelegate, ttl, now)
		if err != nil {
			t.Fatalf("mint with ttl %s under expiry %v: %v", ttl, expiry, err)
		}
		if !expiry.IsZero() && next.After(expiry) {
			t.Fatalf("child expiry %v is after parent's %v", next, expiry)
		}
		scope, expiry = sharevat.ScopeRead|sharevat.ScopeDelegate, next
	}
	if want := now.Add(time.Hour); !expiry.Equal(want) {
		t.Errorf("final expiry = %v, want %v", expiry, want)
	}
}

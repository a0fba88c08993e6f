package sturdyref

import (
	"time"

	"github.com/sharevat/sharevat"
)

// Attenuate checks that a grant with scope parent and expiry parentExpiry
// (zero: never) may mint a child with scope want living ttl from now,
// and returns the child's expiry (zero: never). The rules, checked in
// this order:
//
//   - ERevoked if the parent has expired at now (expiry at or before now).
//   - EPermissionDenied if the parent lacks ScopeDelegate.
//   - EInvalid if want is empty or holds unknown rights, or ttl < 0.
//   - EPermissionDenied if want is not a subset of parent; the message
//     names the missing rights.
//   - ttl == 0 inherits the parent's expiry. Otherwise the expiry is
//     now+ttl, and EPermissionDenied if that is after the parent's.
func Attenuate(parent sharevat.Scope, parentExpiry time.Time, want sharevat.Scope, ttl time.Duration, now time.Time) (expiry time.Time, err error) {
	if err := checkParent(parent, parentExpiry, now); err != nil {
		return time.Time{}, err
	}
	if err := checkWant(parent, want, ttl); err != nil {
		return time.Time{}, err
	}
	return childExpiry(parentExpiry, ttl, now)
}

// checkParent checks that the parent is alive and may delegate.
func checkParent(parent sharevat.Scope, parentExpiry, now time.Time) error {
	if !parentExpiry.IsZero() && !now.Before(parentExpiry) {
		return sharevat.Errorf(sharevat.ERevoked, "grant expired at %s", stamp(parentExpiry))
	}
	if !parent.Has(sharevat.ScopeDelegate) {
		return sharevat.Errorf(sharevat.EPermissionDenied,
			"minting needs the delegate right; this grant has %s", parent)
	}
	return nil
}

// checkWant checks the requested scope and ttl against the parent.
func checkWant(parent, want sharevat.Scope, ttl time.Duration) error {
	switch {
	case want == 0:
		return sharevat.Errorf(sharevat.EInvalid, "scope is empty")
	case !want.SubsetOf(sharevat.ScopeOwner):
		return sharevat.Errorf(sharevat.EInvalid, "scope holds unknown rights (%#x)", uint8(want&^sharevat.ScopeOwner))
	case ttl < 0:
		return sharevat.Errorf(sharevat.EInvalid, "ttl %s is negative", ttl)
	case !want.SubsetOf(parent):
		return sharevat.Errorf(sharevat.EPermissionDenied,
			"scope %s is broader than %s (missing %s)", want, parent, want&^parent)
	}
	return nil
}

// childExpiry applies the ttl and refuses an expiry past the parent's.
func childExpiry(parentExpiry time.Time, ttl time.Duration, now time.Time) (time.Time, error) {
	if ttl == 0 {
		return parentExpiry, nil
	}
	expiry := now.Add(ttl)
	if !parentExpiry.IsZero() && expiry.After(parentExpiry) {
		return time.Time{}, sharevat.Errorf(sharevat.EPermissionDenied,
			"expiry %s is later than the parent's %s", stamp(expiry), stamp(parentExpiry))
	}
	return expiry, nil
}

// stamp formats a time for messages.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

package core

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
)

// NewShare checks s and its owner grant for CreateShare and Fork
// (CheckNewShare), then clears what a new share cannot have yet: a head,
// a compaction, a deletion, a parent; s.OwnerRoot becomes owner.ID.
func NewShare(s *sharevat.Share, owner *sharevat.Grant) error {
	if err := CheckNewShare(s, owner); err != nil {
		return err
	}
	s.Head, s.Earliest, s.OwnerRoot = 0, 1, owner.ID
	s.Deleted, s.DeletedAt = false, time.Time{}
	s.ParentID, s.ForkCursor = "", 0
	return nil
}

// CheckNewShare checks a new share s and its owner grant. Errors:
// EInvalid if an id is empty, owner.ShareID != s.ID, owner.Epoch !=
// s.Epoch, or the settings are invalid (CheckSettings).
func CheckNewShare(s *sharevat.Share, owner *sharevat.Grant) error {
	switch {
	case s.ID == "" || owner.ID == "":
		return sharevat.Errorf(sharevat.EInvalid, "share id and owner grant id must not be empty")
	case owner.ShareID != s.ID:
		return sharevat.Errorf(sharevat.EInvalid, "owner grant is for share %q, not %q", owner.ShareID, s.ID)
	case owner.Epoch != s.Epoch:
		return sharevat.Errorf(sharevat.EInvalid, "owner grant epoch %d is not the share's epoch %d", owner.Epoch, s.Epoch)
	}
	return CheckSettings(s.Settings)
}

// CheckSettings rejects settings no share may have. Errors: EInvalid
// for an unknown privacy policy or a negative RetainFor.
func CheckSettings(set sharevat.Settings) error {
	switch {
	case set.Privacy > sharevat.PrivacyOff:
		return sharevat.Errorf(sharevat.EInvalid, "unknown privacy policy %d", set.Privacy)
	case set.RetainFor < 0:
		return sharevat.Errorf(sharevat.EInvalid, "retention age %v is negative", set.RetainFor)
	}
	return nil
}

// CheckFork checks that parent p's state at cursor at is known. Errors:
// EInvalid if at is past p's head; ECompacted if at < p.Earliest-1.
func CheckFork(p *sharevat.Share, at sharevat.Cursor) error {
	switch {
	case at > p.Head:
		return sharevat.Errorf(sharevat.EInvalid, "cannot fork at cursor %d: the head is %d", at, p.Head)
	case at+1 < p.Earliest:
		return sharevat.Errorf(sharevat.ECompacted, "ops before cursor %d were compacted; fork at cursor %d or later", p.Earliest, p.Earliest-1)
	}
	return nil
}

// CheckCompact checks a compaction of live share s before cursor before
// and reports whether it drops anything (before > s.Earliest). Errors:
// EInvalid if before > head+1.
func CheckCompact(s *sharevat.Share, before sharevat.Cursor) (drop bool, err error) {
	if before > s.Head+1 {
		return false, sharevat.Errorf(sharevat.EInvalid, "cannot compact before cursor %d: the head is %d", before, s.Head)
	}
	return before > s.Earliest, nil
}

// CheckNewOwner checks BumpEpoch's new owner grant before the share is
// read. Errors: EInvalid if owner.ShareID != id or owner.ID is empty.
func CheckNewOwner(id sharevat.ShareID, owner *sharevat.Grant) error {
	if owner.ShareID != id || owner.ID == "" {
		return sharevat.Errorf(sharevat.EInvalid, "new owner grant must have an id and belong to share %q", id)
	}
	return nil
}

// BumpEpoch moves live share s to owner's epoch, which must be the next
// one, with owner as its owner root. Errors: EConflict if owner.Epoch is
// not s.Epoch + 1.
func BumpEpoch(s *sharevat.Share, owner *sharevat.Grant) error {
	if owner.Epoch != s.Epoch+1 {
		return sharevat.Errorf(sharevat.EConflict, "new owner epoch %d is not the share's epoch %d + 1", owner.Epoch, s.Epoch)
	}
	s.Epoch, s.OwnerRoot = owner.Epoch, owner.ID
	return nil
}

// UpdateMeta applies patch to s's metadata at now; a patch that changes
// the status sets Meta.StatusAt to now. Errors: those of MetaPatch.Apply.
func UpdateMeta(s *sharevat.Share, patch sharevat.MetaPatch, now time.Time) error {
	old := s.Meta.Status
	m, err := patch.Apply(s.Meta, now)
	if err != nil {
		return err
	}
	s.Meta = m
	if s.Meta.Status != old {
		s.Meta.StatusAt = now
	}
	return nil
}

// CheckAppend checks what Append can check before its group: a batch,
// valid limits, a live context (the error names the backend, prefix).
// Errors: EInvalid for a nil batch and the errors of Limits.Validate.
func CheckAppend(ctx context.Context, prefix string, req *sharevat.AppendRequest) error {
	if req.Batch == nil {
		return sharevat.Errorf(sharevat.EInvalid, "append without a batch")
	}
	if err := req.Limits.Validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: append: %w", prefix, err)
	}
	return nil
}

// ListLimit checks f's limit and status and returns the page size.
// Errors: EInvalid for a negative limit or an unknown status.
func ListLimit(f *sharevat.ListFilter) (int, error) {
	switch {
	case f.Limit < 0:
		return 0, sharevat.Errorf(sharevat.EInvalid, "list limit is %d; want at least 0", f.Limit)
	case f.Status > sharevat.StatusError:
		return 0, sharevat.Errorf(sharevat.EInvalid, "unknown status %d", f.Status)
	case f.Limit == 0:
		return sharevat.DefaultListLimit, nil
	}
	return min(f.Limit, sharevat.MaxListLimit), nil
}

// CheckDoorSession checks that a session index entry names its creator,
// session and share. Errors: EInvalid.
func CheckDoorSession(s sharevat.DoorSession) error {
	if s.Creator == "" || s.Session == "" || s.Share == "" {
		return sharevat.Errorf(sharevat.EInvalid, "a door session needs a creator, a session and a share")
	}
	return nil
}

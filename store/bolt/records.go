package bolt

import (
	"time"

	"github.com/sharevat/sharevat"
)

// The JSON records below are the on-disk form of shares, grants and audit
// records. They are separate from the domain types so that renaming a
// domain field can never silently change the file format.

type metaRecord struct {
	Title     string    `json:"title,omitempty"`
	ProjectID string    `json:"projectId,omitempty"`
	Directory string    `json:"directory,omitempty"`
	Version   string    `json:"version,omitempty"`
	Status    uint8     `json:"status,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	StatusAt  time.Time `json:"statusAt,omitzero"`
}

type settingsRecord struct {
	Privacy   uint8  `json:"privacy,omitempty"`
	RetainOps uint64 `json:"retainOps,omitempty"`
	RetainFor int64  `json:"retainFor,omitempty"` // nanoseconds
}

type shareRecord struct {
	ID         string         `json:"id"`
	Meta       metaRecord     `json:"meta"`
	Epoch      uint64         `json:"epoch"`
	Head       uint64         `json:"head"`
	Deleted    bool           `json:"deleted,omitempty"`
	DeletedAt  time.Time      `json:"deletedAt,omitzero"`
	OwnerRoot  string         `json:"ownerRoot"`
	ParentID   string         `json:"parentId,omitempty"`
	ForkCursor uint64         `json:"forkCursor,omitempty"`
	Earliest   uint64         `json:"earliest,omitempty"` // 0 or 1: never compacted
	Settings   settingsRecord `json:"settings,omitzero"`
	MaxBytes   int64          `json:"maxBytes,omitempty"`
}

func encodeShare(s *sharevat.Share) ([]byte, error) {
	m, set := s.Meta, s.Settings
	return encodeJSON(shareRecord{
		ID: string(s.ID), Epoch: uint64(s.Epoch), Head: uint64(s.Head),
		Deleted: s.Deleted, DeletedAt: utc(s.DeletedAt), OwnerRoot: string(s.OwnerRoot),
		ParentID: string(s.ParentID), ForkCursor: uint64(s.ForkCursor),
		Earliest: uint64(s.Earliest), MaxBytes: s.MaxBytes,
		Meta: metaRecord{
			Title: m.Title, ProjectID: m.ProjectID, Directory: m.Directory,
			Version: m.Version, Status: uint8(m.Status),
			CreatedAt: utc(m.CreatedAt), UpdatedAt: utc(m.UpdatedAt), StatusAt: utc(m.StatusAt),
		},
		Settings: settingsRecord{Privacy: uint8(set.Privacy), RetainOps: set.RetainOps, RetainFor: int64(set.RetainFor)},
	})
}

// decodeShare decodes a share record. Earliest comes back at least 1;
// Head is the record's informational field (getShare derives the true
// one).
func decodeShare(b []byte) (sharevat.Share, error) {
	var r shareRecord
	if err := decodeJSON(b, &r); err != nil {
		return sharevat.Share{}, err
	}
	m, set := r.Meta, r.Settings
	return sharevat.Share{
		ID: sharevat.ShareID(r.ID), Epoch: sharevat.Epoch(r.Epoch),
		Head: sharevat.Cursor(r.Head), Deleted: r.Deleted, DeletedAt: utc(r.DeletedAt),
		OwnerRoot: sharevat.GrantID(r.OwnerRoot),
		ParentID:  sharevat.ShareID(r.ParentID), ForkCursor: sharevat.Cursor(r.ForkCursor),
		Earliest: sharevat.Cursor(max(r.Earliest, 1)), MaxBytes: r.MaxBytes,
		Meta: sharevat.Meta{
			Title: m.Title, ProjectID: m.ProjectID, Directory: m.Directory,
			Version: m.Version, Status: sharevat.Status(m.Status),
			CreatedAt: utc(m.CreatedAt), UpdatedAt: utc(m.UpdatedAt), StatusAt: utc(m.StatusAt),
		},
		Settings: sharevat.Settings{
			Privacy: sharevat.Privacy(set.Privacy), RetainOps: set.RetainOps,
			RetainFor: time.Duration(set.RetainFor),
		},
	}, nil
}

type grantRecord struct {
	ID        string    `json:"id"`
	Share     string    `json:"share,omitempty"`
	Parent    string    `json:"parent,omitempty"`
	Scope     uint8     `json:"scope"`
	Epoch     uint64    `json:"epoch"`
	Verifier  []byte    `json:"verifier,omitempty"`
	Label     string    `json:"label,omitempty"`
	CreatedBy string    `json:"createdBy,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	Revoked   bool      `json:"revoked,omitempty"`
	RevokedAt time.Time `json:"revokedAt,omitzero"`
	LastUsed  time.Time `json:"lastUsed,omitzero"`
}

func encodeGrant(g *sharevat.Grant) ([]byte, error) {
	return encodeJSON(grantRecord{
		ID: string(g.ID), Share: string(g.ShareID), Parent: string(g.Parent),
		Scope: uint8(g.Scope), Epoch: uint64(g.Epoch), Verifier: g.Verifier,
		Label: g.Label, CreatedBy: g.CreatedBy, CreatedAt: utc(g.CreatedAt),
		ExpiresAt: utc(g.ExpiresAt), Revoked: g.Revoked,
		RevokedAt: utc(g.RevokedAt), LastUsed: utc(g.LastUsed),
	})
}

func decodeGrant(b []byte) (sharevat.Grant, error) {
	var r grantRecord
	if err := decodeJSON(b, &r); err != nil {
		return sharevat.Grant{}, err
	}
	return sharevat.Grant{
		ID: sharevat.GrantID(r.ID), ShareID: sharevat.ShareID(r.Share),
		Parent: sharevat.GrantID(r.Parent), Scope: sharevat.Scope(r.Scope),
		Epoch: sharevat.Epoch(r.Epoch), Verifier: r.Verifier, Label: r.Label,
		CreatedBy: r.CreatedBy, CreatedAt: utc(r.CreatedAt),
		ExpiresAt: utc(r.ExpiresAt), Revoked: r.Revoked,
		RevokedAt: utc(r.RevokedAt), LastUsed: utc(r.LastUsed),
	}, nil
}

type auditRecord struct {
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at,omitzero"`
	Action string    `json:"action"`
	Share  string    `json:"share,omitempty"`
	Grant  string    `json:"grant,omitempty"`
	Parent string    `json:"parent,omitempty"`
	Scope  uint8     `json:"scope,omitempty"`
	Epoch  uint64    `json:"epoch,omitempty"`
	Peer   string    `json:"peer,omitempty"`
	Result string    `json:"result,omitempty"`
}

func encodeAudit(a *sharevat.AuditRecord) ([]byte, error) {
	return encodeJSON(auditRecord{
		Seq: a.Seq, At: utc(a.At), Action: string(a.Action),
		Share: string(a.ShareID), Grant: string(a.GrantID),
		Parent: string(a.Parent), Scope: uint8(a.Scope),
		Epoch: uint64(a.Epoch), Peer: a.Peer, Result: a.Result,
	})
}

func decodeAudit(b []byte) (sharevat.AuditRecord, error) {
	var r auditRecord
	if err := decodeJSON(b, &r); err != nil {
		return sharevat.AuditRecord{}, err
	}
	return sharevat.AuditRecord{
		Seq: r.Seq, At: utc(r.At), Action: sharevat.AuditAction(r.Action),
		ShareID: sharevat.ShareID(r.Share), GrantID: sharevat.GrantID(r.Grant),
		Parent: sharevat.GrantID(r.Parent), Scope: sharevat.Scope(r.Scope),
		Epoch: sharevat.Epoch(r.Epoch), Peer: r.Peer, Result: r.Result,
	}, nil
}

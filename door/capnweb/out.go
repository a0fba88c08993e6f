package capnweb

import (
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
)

// The conversions below build the objects the peer receives, field by
// field in the schema's order and with its names, from the domain values
// package wire decodes.

// timeValue is a time as a Date, null when unset.
func timeValue(t time.Time) capnweb.Value {
	if t.IsZero() {
		return nil
	}
	return t
}

func scopeValue(s sharevat.Scope) *capnweb.Object {
	return capnweb.NewObject().
		Set("read", s.Has(sharevat.ScopeRead)).
		Set("append", s.Has(sharevat.ScopeAppend)).
		Set("delegate", s.Has(sharevat.ScopeDelegate)).
		Set("admin", s.Has(sharevat.ScopeAdmin))
}

func metaValue(m sharevat.Meta) *capnweb.Object {
	return capnweb.NewObject().
		Set("title", m.Title).
		Set("projectId", m.ProjectID).
		Set("directory", m.Directory).
		Set("version", m.Version).
		Set("status", schema.Status(m.Status).String()).
		Set("createdAt", timeValue(m.CreatedAt)).
		Set("updatedAt", timeValue(m.UpdatedAt)).
		Set("statusAt", timeValue(m.StatusAt))
}

func shareInfoValue(s sharevat.Share) *capnweb.Object {
	return capnweb.NewObject().
		Set("id", string(s.ID)).
		Set("meta", metaValue(s.Meta)).
		Set("epoch", uint64(s.Epoch)).
		Set("head", uint64(s.Head)).
		Set("parentId", string(s.ParentID)).
		Set("forkCursor", uint64(s.ForkCursor)).
		Set("deleted", s.Deleted).
		Set("earliest", uint64(s.Earliest))
}

func shareInfosValue(shares []sharevat.Share) []capnweb.Value {
	out := make([]capnweb.Value, len(shares))
	for i := range shares {
		out[i] = shareInfoValue(shares[i])
	}
	return out
}

func statusesValue(sts []sharevat.ShareStatus) []capnweb.Value {
	out := make([]capnweb.Value, len(sts))
	for i, s := range sts {
		out[i] = capnweb.NewObject().
			Set("id", string(s.ID)).
			Set("status", schema.Status(s.Status).String()).
			Set("statusAt", timeValue(s.StatusAt)).
			Set("title", s.Title)
	}
	return out
}

func accessValue(a sharevat.Access) *capnweb.Object {
	return capnweb.NewObject().
		Set("grantId", string(a.GrantID)).
		Set("scope", scopeValue(a.Scope)).
		Set("epoch", uint64(a.Epoch)).
		Set("expiresAt", timeValue(a.ExpiresAt))
}

func mintedValue(m sharevat.Minted) *capnweb.Object {
	return capnweb.NewObject().
		Set("token", m.Token).
		Set("grantId", string(m.GrantID)).
		Set("scope", scopeValue(m.Scope)).
		Set("expiresAt", timeValue(m.ExpiresAt))
}

func grantsValue(grants []sharevat.Grant) []capnweb.Value {
	out := make([]capnweb.Value, len(grants))
	for i, g := range grants {
		out[i] = capnweb.NewObject().
			Set("id", string(g.ID)).
			Set("parent", string(g.Parent)).
			Set("scope", scopeValue(g.Scope)).
			Set("label", g.Label).
			Set("epoch", uint64(g.Epoch)).
			Set("createdBy", g.CreatedBy).
			Set("createdAt", timeValue(g.CreatedAt)).
			Set("lastUsedAt", timeValue(g.LastUsed)).
			Set("expiresAt", timeValue(g.ExpiresAt)).
			Set("revoked", g.Revoked).
			Set("revokedAt", timeValue(g.RevokedAt))
	}
	return out
}

func settingsValue(s sharevat.Settings) *capnweb.Object {
	return capnweb.NewObject().
		Set("privacy", schema.Privacy(s.Privacy).String()).
		Set("retainOps", s.RetainOps).
		Set("retainSeconds", int64(s.RetainFor/time.Second))
}

func limitsValue(l sharevat.Limits) *capnweb.Object {
	return capnweb.NewObject().
		Set("maxBodyBytes", l.MaxBodyBytes).
		Set("maxOpsPerBatch", l.MaxOpsPerBatch).
		Set("maxBatchBytes", l.MaxBatchBytes).
		Set("maxOpIdLen", l.MaxOpIDLen).
		Set("maxKeyLen", l.MaxKeyLen).
		Set("maxDependsOn", l.MaxDependsOn)
}

func ackValue(a sharevat.Ack) *capnweb.Object {
	results := make([]capnweb.Value, len(a.Results))
	for i, r := range a.Results {
		results[i] = capnweb.NewObject().
			Set("opId", r.OpID).
			Set("status", schema.OpStatus(r.Status).String()).
			Set("cursor", uint64(r.Cursor)).
			Set("reason", schema.Reason(r.Reason).String()).
			Set("detail", r.Message)
	}
	return capnweb.NewObject().
		Set("head", uint64(a.Head)).
		Set("results", results).
		Set("applied", a.Applied).
		Set("duplicates", a.Duplicates).
		Set("rejected", a.Rejected).
		Set("redacted", a.Redacted)
}

func entriesValue(entries []sharevat.Entry) []capnweb.Value {
	out := make([]capnweb.Value, len(entries))
	for i, e := range entries {
		out[i] = capnweb.NewObject().
			Set("cursor", uint64(e.Cursor)).
			Set("opId", e.OpID).
			Set("batchId", e.BatchID).
			Set("seq", e.Seq).
			Set("kind", e.Kind).
			Set("key", e.Key).
			Set("body", decodeBody(e.Body)).
			Set("delete", e.Delete).
			Set("at", timeValue(e.At))
	}
	return out
}

func entitiesValue(ents []sharevat.Entity) []capnweb.Value {
	out := make([]capnweb.Value, len(ents))
	for i, e := range ents {
		out[i] = capnweb.NewObject().
			Set("kind", e.Kind).
			Set("key", e.Key).
			Set("body", decodeBody(e.Body)).
			Set("cursor", uint64(e.Cursor)).
			Set("at", timeValue(e.At))
	}
	return out
}

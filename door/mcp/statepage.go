package mcp

import (
	"encoding/base64"
	"encoding/json"

	"github.com/sharevat/sharevat"
)

// afterToken is what the snapshot tool's after/nextAfter carries: the
// order and the state cursor of the walk, as base64url JSON, opaque to
// the agent.
type afterToken struct {
	Order  sharevat.StateOrder `json:"o"`
	Kind   string              `json:"k"`
	Key    string              `json:"y"`
	Cursor uint64              `json:"c"`
}

// pageRequest is the state page the snapshot tool's arguments ask for.
func pageRequest(in snapshotIn, limit int) (sharevat.StatePageRequest, error) {
	req := sharevat.StatePageRequest{Order: sharevat.ByKey, MaxCount: limit}
	if in.Newest {
		req.Order = sharevat.ByChange
	}
	if in.After == "" {
		return req, nil
	}
	var t afterToken
	raw, err := base64.RawURLEncoding.DecodeString(in.After)
	if err == nil {
		err = json.Unmarshal(raw, &t)
	}
	if err != nil || t.Order != req.Order {
		return req, invalid("after must be a nextAfter of snapshot with the same newest")
	}
	req.After = sharevat.StateCursor{Kind: t.Kind, Key: t.Key, Cursor: sharevat.Cursor(t.Cursor)}
	return req, nil
}

// snapshotOf answers one page of the state.
func snapshotOf(p sharevat.StatePage, order sharevat.StateOrder) snapshotOut {
	out := snapshotOut{Cursor: uint64(p.Head), Entities: []entityOut{}}
	for _, e := range p.Entities {
		out.Entities = append(out.Entities, entityOut{Kind: e.Kind, Key: e.Key, Body: body(e.Body),
			Cursor: uint64(e.Cursor), At: e.At})
	}
	if !p.Done {
		b, _ := json.Marshal(afterToken{Order: order, Kind: p.Next.Kind, Key: p.Next.Key, Cursor: uint64(p.Next.Cursor)})
		out.NextAfter = base64.RawURLEncoding.EncodeToString(b)
	}
	return out
}

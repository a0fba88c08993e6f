package opencode

import (
	"bytes"
	"net/http"
	"sort"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/wire"
)

// data serves GET /api/share/<slug>/data: the latest item of every key,
// sorted by opencode's client key, as opencode import reads them. Only a
// read-only token (the link) is accepted; anything else, and a deleted
// share, answers 404.
func (d *Door) data(w http.ResponseWriter, r *http.Request, slug string) error {
	v := d.vault(r)
	defer v.Release()
	sh, err := restore(r.Context(), v, slug)
	if err != nil {
		if wire.DomainError(err).Code == sharevat.EUnavailable {
			return err
		}
		return errNoShare
	}
	defer sh.release()
	if sh.access.Scope != sharevat.ScopeRead {
		return errNoShare
	}
	h := d.hold()
	defer h.release()
	ents, _, err := snapshot(r.Context(), sh.share, sh.info.Earliest, h)
	if err != nil {
		return err
	}
	if err := h.take(answerBytes(ents)); err != nil { // the answer, besides the state
		return err
	}
	writeRaw(w, http.StatusOK, itemsJSON(ents))
	return nil
}

// errNoShare is the answer for a slug that is not a live link.
var errNoShare = fail(http.StatusNotFound, "notFound: no such share (unshared, revoked, or never made)")

// answerBytes is about the length of itemsJSON(ents).
func answerBytes(ents []sharevat.Entity) int64 {
	return bodyBytes(ents) + int64(len(ents))*32 + 2
}

// itemsJSON encodes the entities of opencode's kinds as items sorted by
// client key, each data the stored body as it is.
func itemsJSON(ents []sharevat.Entity) []byte {
	keep := ents[:0:0]
	for _, e := range ents {
		if sharevat.IsStateKind(e.Kind) {
			keep = append(keep, e)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool {
		return clientKey(keep[i].Kind, keep[i].Key) < clientKey(keep[j].Kind, keep[j].Key)
	})
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range keep {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"`)
		b.WriteString(e.Kind)
		b.WriteString(`","data":`)
		b.Write(e.Body)
		b.WriteByte('}')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// unshare serves DELETE …/api/share/<id>: with the share's secret it
// deletes the share as `sharevat delete` does (every token of it dies at
// once; its data is removed).
func (d *Door) unshare(w http.ResponseWriter, r *http.Request, id sharevat.ShareID) error {
	sh, err := d.passed(r, id, sharevat.ScopeAdmin) // the secret the gate redeemed
	if err != nil {
		return err
	}
	defer sh.release()
	st := d.states.get(id)
	defer st.mu.Unlock()
	if err := deleteShare(r.Context(), sh.share); err != nil {
		return err
	}
	d.states.forget(id)
	if err := d.idx.drop(r.Context(), id); err != nil {
		d.o.Logger.Warn("opencode door: the index did not record an unshare", "share", id, "error", err)
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

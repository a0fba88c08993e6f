package opencode

import (
	"bufio"
	"net/http"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/wire"
)

// data serves GET /api/share/<slug>/data: the latest item of every key,
// sorted by opencode's client key, as opencode import reads them. Only a
// read-only token (the link) is accepted; anything else, and a deleted
// share, answers 404. The answer streams from the share's state read
// page by page (statepages.go), so what it holds is one page whatever
// the share's size. The order is the key the public share server sorts
// items by (session, message/<id>, part/<messageID>/<id>, session_diff,
// model, compared as strings), which for opencode's five kinds is the
// state's (kind, key) order. A failure before the first item is an error answer;
// after it, the connection is cut, so a client never takes half an
// answer for a whole one.
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
	rfut, rrel := sh.share.Reader(r.Context(), nil)
	defer rrel()
	out := &itemsWriter{w: w}
	if _, err := walkState(r.Context(), rfut.Reader(), h, out.page); err != nil {
		if !out.started {
			return err
		}
		d.o.Logger.Debug("opencode door: a data answer was cut", "error", err)
		panic(http.ErrAbortHandler)
	}
	return out.finish()
}

// errNoShare is the answer for a slug that is not a live link.
var errNoShare = fail(http.StatusNotFound, "notFound: no such share (unshared, revoked, or never made)")

// itemsWriter writes the JSON array of GET …/data page by page: each
// entity of opencode's kinds as {"type":kind,"data":body}, the body as
// stored.
type itemsWriter struct {
	w       http.ResponseWriter
	b       *bufio.Writer
	started bool // the status and "[" are written
	n       int  // the items written
}

// page writes the items of one page of the state.
func (iw *itemsWriter) page(ents []sharevat.Entity) error {
	iw.start()
	for i := range ents {
		e := &ents[i]
		if !sharevat.IsStateKind(e.Kind) {
			continue
		}
		if iw.n > 0 {
			iw.b.WriteByte(',')
		}
		iw.n++
		iw.b.WriteString(`{"type":"`)
		iw.b.WriteString(e.Kind)
		iw.b.WriteString(`","data":`)
		iw.b.Write(e.Body)
		iw.b.WriteByte('}')
	}
	return iw.b.Flush()
}

func (iw *itemsWriter) start() {
	if iw.started {
		return
	}
	iw.started = true
	iw.w.Header().Set("Content-Type", "application/json")
	iw.w.WriteHeader(http.StatusOK)
	iw.b = bufio.NewWriterSize(iw.w, 64<<10)
	iw.b.WriteByte('[')
}

// finish ends the array (an empty state is one page with no entity).
func (iw *itemsWriter) finish() error {
	iw.start()
	iw.b.WriteString("]\n")
	if err := iw.b.Flush(); err != nil {
		panic(http.ErrAbortHandler) // the client is gone
	}
	return nil
}

// unshare serves DELETE …/api/share/<id>: with the share's secret it
// deletes the share as `sharevat delete` does (every token of it dies at
// once; its data is removed).
func (d *Door) unshare(w http.ResponseWriter, r *http.Request, id sharevat.ShareID) error {
	sh, err := d.passed(r, id) // the secret the gate redeemed
	if err != nil {
		return err
	}
	defer sh.release()
	st := d.states.get(id)
	defer d.states.done(st)
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

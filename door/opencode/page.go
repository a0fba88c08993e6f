package opencode

import (
	"net/http"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/wire"
)

// Page wraps page, the share page's handler for /share/<slug>, so that
// the page of a slug that is not a live link — unshared, revoked, never
// made — answers 404 as GET …/api/share/<slug>/data does, instead of a
// page that can only say so once loaded. The page's assets
// (/share/<name>.<ext>) are served as they are. A store that cannot
// answer gives 503.
func (d *Door) Page(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slug := strings.TrimPrefix(r.URL.Path, "/share/")
		if strings.Contains(slug, ".") && !strings.Contains(slug, "/") {
			page.ServeHTTP(w, r) // an asset: app.js, style.css, …
			return
		}
		if err := d.live(r, strings.TrimSuffix(slug, "/")); err != nil {
			setHeaders(w.Header())
			writeError(w, err)
			return
		}
		page.ServeHTTP(w, r)
	})
}

// live returns nil when slug is a live link (a read-only token), else
// the error /data answers.
func (d *Door) live(r *http.Request, slug string) error {
	if d.o.Admit != nil {
		done, refusal := d.o.Admit(r)
		if done == nil {
			return fail(http.StatusServiceUnavailable, "unavailable: "+refusal)
		}
		defer done()
	}
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
	return nil
}

package opencode

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// maxSessionID bounds an opencode session id.
const maxSessionID = 256

// answer is what a create answers.
type answer struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

// create serves POST …/api/share: a new share for the session, or the
// one the same creation right already made for it.
func (d *Door) create(w http.ResponseWriter, r *http.Request, token string) error {
	var in struct {
		SessionID string `json:"sessionID"`
	}
	if err := d.readBody(r, &in); err != nil {
		return err
	}
	if in.SessionID == "" || len(in.SessionID) > maxSessionID {
		return fail(http.StatusBadRequest, "invalid: sessionID must be a string of 1 to 256 bytes")
	}
	p := gate.PassFrom(r.Context())
	v := p.Vault()
	admin, creator, quota, err := d.creationRight(r.Context(), p, token)
	if err != nil {
		return err
	}
	defer admin.Release()
	defer d.creats.lock(createdKey(creator, in.SessionID))()
	if e, ok, err := d.idx.lookup(r.Context(), creator, in.SessionID); err != nil {
		return err
	} else if ok {
		a, err := d.again(r.Context(), v, r, e)
		if err == nil {
			writeJSON(w, http.StatusOK, a)
			return nil
		}
		if !errors.Is(err, errGone) {
			return err
		}
		if err := d.idx.drop(r.Context(), e.Share); err != nil {
			return err
		}
	}
	a, err := d.createNew(r.Context(), v, admin, r, creator, in.SessionID, quota)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// creationRight is the Admin the gate redeemed the creation token to
// (or, with no token on an opencode-open server, the open create-only
// Admin), the creator's name in the index and its bytes-per-share quota.
// The admin token itself is refused: it does not belong in opencode's
// config.
func (d *Door) creationRight(ctx context.Context, p *gate.Pass, token string) (schema.Admin, string, int64, error) {
	if token == "" {
		a, err := d.o.Vat.OpenCreator("opencode")
		return a, openCreator, 0, err
	}
	tok, err := sturdyref.Parse(token)
	if err != nil {
		return schema.Admin{}, "", 0, errBadCreator
	}
	_, q, ok := d.o.Vat.CreateQuotaOf(ctx, token)
	if !ok {
		return schema.Admin{}, "", 0, errBadCreator
	}
	return p.Admin().AddRef(), string(tok.GrantID), q.BytesPerShare, nil
}

var errBadCreator = errUnauthorized

// errGone: the indexed share no longer answers (deleted outside the
// door); a new one is made.
var errGone = errors.New("the indexed share is gone")

// again answers the share of an index entry, if its secret still works.
func (d *Door) again(ctx context.Context, v schema.Vault, r *http.Request, e entry) (answer, error) {
	id := e.Share
	secret, err := d.idx.open(id, e.Secret)
	if err != nil {
		return answer{}, err
	}
	link, err := d.idx.open(id, e.Link)
	if err != nil {
		return answer{}, err
	}
	sh, err := restore(ctx, v, secret)
	if err != nil {
		if c := wire.DomainError(err).Code; c == sharevat.EUnavailable || c == sharevat.EInternal {
			return answer{}, err
		}
		return answer{}, errGone
	}
	defer sh.release()
	if e.Creator == openCreator && !joinable(e, sh.info, time.Now()) {
		return answer{}, errShared
	}
	return answer{ID: string(e.Share), URL: d.base(r) + "/share/" + link, Secret: secret}, nil
}

// joinWindow is how long after an open create a create of the same
// session may still answer the same share (see joinable).
const joinWindow = 30 * time.Second

// joinable reports whether an open create of e's session may answer e's
// share: opencode's share:"auto" sends two creates for a new session at
// once, and both must end in one share. On an open door nothing but the
// session id identifies the creator, and a share's readers learn it
// (its session item); so the share is answered again only while nobody
// can have read it there: it holds nothing yet (the first sync closes
// the window) and was made less than joinWindow ago.
func joinable(e entry, sh sharevat.Share, now time.Time) bool {
	return sh.Head == 0 && !e.Created.IsZero() && now.Sub(e.Created) < joinWindow
}

// errShared answers an open create of a session whose share is no longer
// joinable: no rights of it to a caller who may only know the session id.
var errShared = fail(http.StatusConflict, "conflict: this session is already shared; its secret stays with the opencode that shared it (unshare it there, or delete the share, to share it anew)")

// createNew creates the share and its link and claims the session for
// them in the index. When another vat claimed it first, the new share
// is deleted and the claimed one answered.
func (d *Door) createNew(ctx context.Context, v schema.Vault, admin schema.Admin, r *http.Request, creator, session string, max int64) (answer, error) {
	if creator == openCreator {
		if err := d.quota.take(r, time.Now()); err != nil {
			return answer{}, err
		}
	}
	c, err := createShare(ctx, admin, shareTitle(creator, session))
	if err != nil {
		if de := wire.DomainError(err); de.Code == sharevat.ETooLarge { // the creation token's hourly quota
			return answer{}, fail(http.StatusTooManyRequests, de.Error())
		}
		return answer{}, err
	}
	defer c.share.Release()
	link, err := grantLink(ctx, c.share)
	if err != nil {
		return answer{}, err
	}
	e := entry{Creator: creator, Session: session, Share: c.id, Max: max, Created: time.Now()}
	if e.Secret, err = d.idx.seal(c.id, c.owner); err != nil {
		return answer{}, err
	}
	if e.Link, err = d.idx.seal(c.id, link); err != nil {
		return answer{}, err
	}
	got, err := d.idx.claim(ctx, e)
	if err != nil {
		return answer{}, err
	}
	if got.Share != c.id { // another vat's create of the session won
		if err := deleteShare(ctx, c.share); err != nil {
			d.o.Logger.Warn("opencode door: a share made for a session another vat shared first is left", "share", c.id, "error", err)
		}
		return d.again(ctx, v, r, got)
	}
	return answer{ID: string(c.id), URL: d.base(r) + "/share/" + link, Secret: c.owner}, nil
}

// shareTitle is the title of a share made for session: it names the
// session, but not on the open door, where the session id is what would
// let a reader join the share while it is new (joinable).
func shareTitle(creator, session string) string {
	if creator == openCreator {
		return "opencode session"
	}
	return "opencode " + session
}

func createdKey(creator, session string) string { return creator + "\x00" + session }

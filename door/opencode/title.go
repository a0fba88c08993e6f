package opencode

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// The share's title follows the session's: the door creates a share
// titled "opencode <session id>" ("opencode session" on the open door,
// where the id would let a reader join it while it is new), and once a
// session item with a title is stored, by a sync or by another writer,
// the next sync sets the share's title to it (`sharevat list`, the
// page). The title is the user's own words, never the session id.

// sessionTitle is the title of a session item's data, cut to the
// longest metadata field; "" when it has none.
func sessionTitle(body []byte) string {
	var f struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(body, &f) != nil {
		return ""
	}
	t := f.Title
	for len(t) > sharevat.MaxMetaField {
		_, n := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-n]
	}
	return t
}

// followTitle sets sh's title to title when it is not empty and differs;
// a failure is logged, the sync having succeeded.
func (d *Door) followTitle(ctx context.Context, sh *restored, title string) {
	if title == "" || title == sh.info.Meta.Title {
		return
	}
	if err := setTitle(ctx, sh.share, title); err != nil {
		d.o.Logger.Warn("opencode door: the share's title did not follow its session's", "share", sh.info.ID, "error", err)
	}
}

// setTitle updates sh's title (needs admin: the owner token).
func setTitle(ctx context.Context, sh schema.Share, title string) error {
	fut, rel := sh.Update(ctx, func(p schema.Share_update_Params) error {
		m, err := p.NewMeta()
		if err != nil {
			return err
		}
		return wire.SetMetaPatch(m, sharevat.MetaPatch{Title: &title})
	})
	defer rel()
	_, err := fut.Struct()
	return err
}

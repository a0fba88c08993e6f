package bolt

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// CreateGrant stores a new grant. Errors: EInvalid if g.ID is empty;
// EConflict if the id exists; ENotFound if g.ShareID is set and the share
// does not exist or is deleted.
func (db *DB) CreateGrant(ctx context.Context, g sharevat.Grant) error {
	if g.ID == "" {
		return sharevat.Errorf(sharevat.EInvalid, "grant id must not be empty")
	}
	return db.update(ctx, "create grant", func(tx *bbolt.Tx) error {
		if g.ShareID != "" {
			if _, err := liveShare(tx, g.ShareID); err != nil {
				return err
			}
		}
		return putNewGrant(tx, &g)
	})
}

// CreateChild stores g, minted from g.Parent, unless the parent already
// has maxLive or more live children (maxLive < 1: no limit). Errors: as
// CreateGrant; EInvalid if g.Parent is empty; ENotFound if the parent
// does not exist or is of another share; ETooLarge at the limit.
func (db *DB) CreateChild(ctx context.Context, g sharevat.Grant, maxLive int) error {
	if g.ID == "" || g.Parent == "" {
		return sharevat.Errorf(sharevat.EInvalid, "grant id and parent must not be empty")
	}
	return db.update(ctx, "create child grant", func(tx *bbolt.Tx) error {
		if err := checkChild(tx, &g, maxLive); err != nil {
			return err
		}
		return putNewGrant(tx, &g)
	})
}

// checkChild checks g's share and parent, and the parent's quota.
func checkChild(tx *bbolt.Tx, g *sharevat.Grant, maxLive int) error {
	if g.ShareID != "" {
		if _, err := liveShare(tx, g.ShareID); err != nil {
			return err
		}
	}
	p, err := getGrant(tx, g.Parent)
	if err != nil {
		return err
	}
	if p.ShareID != g.ShareID {
		return sharevat.Errorf(sharevat.ENotFound, "grant %q not found on share %q", g.Parent, g.ShareID)
	}
	if maxLive < 1 {
		return nil
	}
	idx, err := grantIndex(tx)
	if err != nil {
		return err
	}
	n, err := liveChildren(idx, g.Parent, g.CreatedAt)
	if err != nil {
		return err
	}
	if n >= maxLive {
		return sharevat.Errorf(sharevat.ETooLarge, "this grant has minted %d live grants (the limit is %d); revoke some first", n, maxLive)
	}
	return nil
}

// Subtree returns root and every grant below it, ordered by creation
// time, then id. Errors: ENotFound.
func (db *DB) Subtree(ctx context.Context, root sharevat.GrantID) ([]sharevat.Grant, error) {
	out, err := db.subtree(ctx, root)
	if errors.Is(err, errNoGrantIndex) {
		err = db.update(ctx, "build grant index", func(tx *bbolt.Tx) error {
			_, err := grantIndex(tx)
			return err
		})
		if err == nil {
			out, err = db.subtree(ctx, root)
		}
	}
	sortGrants(out)
	return core.OrZero(out, err)
}

// subtree is Subtree in one read transaction; errNoGrantIndex if the
// file predates the index.
func (db *DB) subtree(ctx context.Context, root sharevat.GrantID) (out []sharevat.Grant, err error) {
	err = db.view(ctx, "subtree", func(tx *bbolt.Tx) error {
		idx, err := readIndex(tx)
		if err != nil {
			return err
		}
		out, err = subtree(tx, idx, root)
		return err
	})
	return out, err
}

// Grant returns one grant. Errors: ENotFound.
func (db *DB) Grant(ctx context.Context, id sharevat.GrantID) (g sharevat.Grant, err error) {
	err = db.view(ctx, "grant", func(tx *bbolt.Tx) error {
		g, err = getGrant(tx, id)
		return err
	})
	return g, err
}

// Grants lists a share's grants (admin grants for the empty id), ordered
// by creation time, then id. An unknown share has no grants.
func (db *DB) Grants(ctx context.Context, share sharevat.ShareID) (out []sharevat.Grant, err error) {
	err = db.view(ctx, "grants", func(tx *bbolt.Tx) error {
		prefix := prefixKey(string(share), nil)
		c := tx.Bucket(bucketShareGrants).Cursor()
		grants := tx.Bucket(bucketGrants)
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			g, err := decodeGrant(grants.Get(k[len(prefix):])) // missing: corrupt
			if err != nil {
				return fmt.Errorf("grant %q of share_grants index: %w", k[len(prefix):], err)
			}
			out = append(out, g)
		}
		return nil
	})
	sortGrants(out)
	return core.OrZero(out, err)
}

// sortGrants orders grants by creation time, then id.
func sortGrants(gs []sharevat.Grant) {
	slices.SortFunc(gs, func(a, b sharevat.Grant) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
}

// RevokeGrants marks the grants revoked at at, atomically; a grant
// already revoked keeps its first revocation time. Errors: ENotFound if
// any id is unknown (then nothing changes).
func (db *DB) RevokeGrants(ctx context.Context, ids []sharevat.GrantID, at time.Time) error {
	return db.update(ctx, "revoke grants", func(tx *bbolt.Tx) error {
		for _, id := range ids {
			if err := revokeGrant(tx, id, at); err != nil {
				return err
			}
		}
		return nil
	})
}

func revokeGrant(tx *bbolt.Tx, id sharevat.GrantID, at time.Time) error {
	g, err := getGrant(tx, id)
	if err != nil || g.Revoked {
		return err
	}
	g.Revoked, g.RevokedAt = true, at
	if err := putGrant(tx, &g); err != nil {
		return err
	}
	return indexChild(tx, &g)
}

// TouchGrants records last-used times. Unknown ids are ignored, and a
// time earlier than the stored one does not move it back.
func (db *DB) TouchGrants(ctx context.Context, used map[sharevat.GrantID]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return db.update(ctx, "touch grants", func(tx *bbolt.Tx) error {
		for id, at := range used {
			if err := touchGrant(tx, id, at); err != nil {
				return err
			}
		}
		return nil
	})
}

func touchGrant(tx *bbolt.Tx, id sharevat.GrantID, at time.Time) error {
	v := tx.Bucket(bucketGrants).Get([]byte(id))
	if v == nil {
		return nil
	}
	g, err := decodeGrant(v)
	if err != nil {
		return fmt.Errorf("grant %q: %w", id, err)
	}
	if !at.After(g.LastUsed) {
		return nil
	}
	g.LastUsed = at
	return putGrant(tx, &g)
}

// getGrant loads a grant. Errors: ENotFound.
func getGrant(tx *bbolt.Tx, id sharevat.GrantID) (sharevat.Grant, error) {
	v := tx.Bucket(bucketGrants).Get([]byte(id))
	if v == nil {
		return sharevat.Grant{}, sharevat.Errorf(sharevat.ENotFound, "grant %q not found", id)
	}
	g, err := decodeGrant(v)
	if err != nil {
		return g, fmt.Errorf("grant %q: %w", id, err)
	}
	return g, nil
}

// putNewGrant stores a grant that must not exist yet, and indexes it
// under its share and its parent. Errors: EConflict.
func putNewGrant(tx *bbolt.Tx, g *sharevat.Grant) error {
	if tx.Bucket(bucketGrants).Get([]byte(g.ID)) != nil {
		return sharevat.Errorf(sharevat.EConflict, "grant %q already exists", g.ID)
	}
	if err := putGrant(tx, g); err != nil {
		return err
	}
	k := prefixKey(string(g.ShareID), []byte(g.ID))
	if err := tx.Bucket(bucketShareGrants).Put(k, []byte{}); err != nil {
		return err
	}
	return indexChild(tx, g)
}

func putGrant(tx *bbolt.Tx, g *sharevat.Grant) error {
	v, err := encodeGrant(g)
	if err != nil {
		return fmt.Errorf("grant %q: %w", g.ID, err)
	}
	return tx.Bucket(bucketGrants).Put([]byte(g.ID), v)
}

package bolt

import (
	"context"
	"encoding/base64"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// pageTokenVersion leads every page token this store makes.
const pageTokenVersion = 1

// ListShares returns one page of the shares that match f, newest update
// first, then by id, and the next page's token ("" on the last page).
// It walks share_updated from the token's position, reading each share's
// record to apply the filter: a selective filter reads past the shares it
// skips. Appends still only in the write-ahead log count as applied
// (listMerge): a listing never waits for the log. A page token is
// base64url of version (1) ‖ the share_updated key of the last share of
// the page before; the next page starts after that key, so it stays
// valid whatever changes meanwhile.
// Errors: EInvalid for a negative limit, an unknown status, or a token
// this store did not make.
func (db *DB) ListShares(ctx context.Context, f sharevat.ListFilter) (out []sharevat.Share, next string, err error) {
	limit, after, err := listStart(&f)
	if err != nil {
		return nil, "", err
	}
	tails := db.tailHeads()
	err = db.view(ctx, "list shares", func(tx *bbolt.Tx) error {
		m, err := newListMerge(tx, tails)
		if err != nil {
			return err
		}
		out, next, err = listPage(newMergedCursor(tx, m, after), &f, limit)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// listStart checks f (core.ListLimit) and returns the page size and the
// share_updated key its page token resumes after (nil: the first page).
func listStart(f *sharevat.ListFilter) (limit int, after []byte, err error) {
	if limit, err = core.ListLimit(f); err != nil {
		return 0, nil, err
	}
	after, err = decodePageToken(f.PageToken)
	return limit, after, err
}

// listPage collects up to limit matching shares from c, and the token
// of the next page if one more share matches.
func listPage(c *mergedCursor, f *sharevat.ListFilter, limit int) (out []sharevat.Share, next string, err error) {
	var last []byte
	for {
		s, k, ok, err := c.next()
		if err != nil {
			return nil, "", fmt.Errorf("share_updated index: %w", err)
		}
		if !ok {
			return out, "", nil
		}
		if !matches(f, &s) {
			continue
		}
		if len(out) == limit {
			return out, encodePageToken(last), nil
		}
		out, last = append(out, s), k
	}
}

// matches reports whether s passes every set field of f.
func matches(f *sharevat.ListFilter, s *sharevat.Share) bool {
	return (f.WithDeleted || !s.Deleted) &&
		(f.ProjectID == "" || f.ProjectID == s.Meta.ProjectID) &&
		(f.Directory == "" || f.Directory == s.Meta.Directory) &&
		(f.Status == sharevat.StatusUnset || f.Status == s.Meta.Status) &&
		(f.ParentID == "" || f.ParentID == s.ParentID)
}

func encodePageToken(key []byte) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{pageTokenVersion}, key...))
}

// decodePageToken returns the share_updated key a token resumes after,
// nil for the first page.
func decodePageToken(tok string) ([]byte, error) {
	if tok == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+8 || b[0] != pageTokenVersion {
		return nil, sharevat.Errorf(sharevat.EInvalid, "malformed page token")
	}
	return b[1:], nil
}

// Statuses returns the status of every live share, ordered by id, from
// share_status alone.
func (db *DB) Statuses(ctx context.Context) (out []sharevat.ShareStatus, err error) {
	err = db.view(ctx, "statuses", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketShareStatus).ForEach(func(k, v []byte) error {
			st, err := decodeStatus(k, v)
			if err == nil {
				out = append(out, st)
			}
			return err
		})
	})
	return core.OrZero(out, err)
}

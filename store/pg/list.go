package pg

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// pageVersion is the first byte of a page token: base64url(0x01 ‖
// 8-byte updated_at of the last share listed ‖ its id).
const pageVersion = 1

// ListShares returns one page of the shares that match f, newest update
// first, then by id, and the next page's token ("" on the last page).
// Errors: EInvalid for a negative limit, an unknown status, or a token
// this store did not make.
func (st *Store) ListShares(ctx context.Context, f sharevat.ListFilter) (out []sharevat.Share, next string, err error) {
	limit, err := core.ListLimit(&f)
	if err != nil {
		return nil, "", err
	}
	where, args, err := listWhere(f)
	if err != nil {
		return nil, "", err
	}
	args = append(args, limit+1)
	sql := fmt.Sprintf("SELECT %s FROM shares WHERE %s ORDER BY updated_at DESC, id LIMIT $%d", shareCols, where, len(args))
	err = st.view(ctx, "list shares", func(tx pgx.Tx) error {
		out, err = queryShares(ctx, tx, sql, args...)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	if len(out) > limit {
		out = out[:limit]
		next = pageToken(&out[limit-1])
	}
	return out, next, nil
}

// listWhere builds the condition f selects, with its parameters.
func listWhere(f sharevat.ListFilter) (string, []any, error) {
	var conds []string
	var args []any
	add := func(cond string, vals ...any) {
		for _, v := range vals {
			args = append(args, v)
			cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(args)), 1)
		}
		conds = append(conds, cond)
	}
	add("TRUE")
	if !f.WithDeleted {
		add("NOT deleted")
	}
	for _, eq := range []struct{ col, v string }{{"project_id", f.ProjectID}, {"directory", f.Directory}, {"parent_id", string(f.ParentID)}} {
		if eq.v != "" {
			add(eq.col+" = ?", b(eq.v))
		}
	}
	if f.Status != sharevat.StatusUnset {
		add("status = ?", int16(f.Status))
	}
	if f.PageToken != "" {
		at, id, err := parsePageToken(f.PageToken)
		if err != nil {
			return "", nil, err
		}
		add("(updated_at < ? OR (updated_at = ? AND id > ?))", at, at, id)
	}
	return strings.Join(conds, " AND "), args, nil
}

// pageToken is the token of the page after s.
func pageToken(s *sharevat.Share) string {
	k := binary.BigEndian.AppendUint64([]byte{pageVersion}, uint64(ns(s.Meta.UpdatedAt)))
	return base64.RawURLEncoding.EncodeToString(append(k, s.ID...))
}

// parsePageToken returns the update time and id a token resumes after.
func parsePageToken(tok string) (int64, []byte, error) {
	k, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(k) < 10 || k[0] != pageVersion {
		return 0, nil, sharevat.Errorf(sharevat.EInvalid, "not a page token of this listing")
	}
	return int64(binary.BigEndian.Uint64(k[1:9])), k[9:], nil
}

// Statuses returns the status of every live share, by id.
func (st *Store) Statuses(ctx context.Context) (out []sharevat.ShareStatus, err error) {
	err = st.view(ctx, "statuses", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT id, title, status, status_at FROM shares WHERE NOT deleted ORDER BY id")
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.ShareStatus, error) {
			var s sharevat.ShareStatus
			var status int16
			var at int64
			err := r.Scan(sc(&s.ID), sc(&s.Title), &status, &at)
			s.Status, s.StatusAt = sharevat.Status(status), fromNS(at)
			return s, err
		})
		return err
	})
	return core.OrZero(out, err)
}

// Children lists the live shares forked from parent, oldest first.
// Errors: ENotFound if parent does not exist or is deleted.
func (st *Store) Children(ctx context.Context, parent sharevat.ShareID) (out []sharevat.Share, err error) {
	err = st.view(ctx, "children", func(tx pgx.Tx) error {
		if _, err := liveShare(ctx, tx, parent, false); err != nil {
			return err
		}
		out, err = queryShares(ctx, tx, "SELECT "+shareCols+` FROM shares WHERE parent_id = $1 AND parent_id <> ''::bytea
			AND NOT deleted ORDER BY created_at, id`, b(parent))
		return err
	})
	return core.OrZero(out, err)
}

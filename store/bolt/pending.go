package bolt

import (
	"context"
	"time"

	"sharevat"
)

// errPending answers the issue-10 methods whose bbolt implementation has
// not landed yet. It is not a domain error, so it is EInternal at the RPC
// boundary. This file goes as each method lands.
func errPending(method string) error {
	return sharevat.Errorf(sharevat.EInternal, "store/bolt: %s is not implemented yet", method)
}

// Fork: see sharevat.ShareStore. Not implemented yet.
func (db *DB) Fork(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, s sharevat.Share, owner sharevat.Grant) (sharevat.Share, error) {
	return sharevat.Share{}, errPending("Fork")
}

// Children: see sharevat.ShareStore. Not implemented yet.
func (db *DB) Children(ctx context.Context, parent sharevat.ShareID) ([]sharevat.Share, error) {
	return nil, errPending("Children")
}

// Delete: see sharevat.ShareStore. Not implemented yet.
func (db *DB) Delete(ctx context.Context, id sharevat.ShareID, at time.Time) error {
	return errPending("Delete")
}

// ListShares: see sharevat.ShareStore. Not implemented yet.
func (db *DB) ListShares(ctx context.Context, f sharevat.ListFilter) ([]sharevat.Share, string, error) {
	return nil, "", errPending("ListShares")
}

// Statuses: see sharevat.ShareStore. Not implemented yet.
func (db *DB) Statuses(ctx context.Context) ([]sharevat.ShareStatus, error) {
	return nil, errPending("Statuses")
}

// Compact: see sharevat.LogStore. Not implemented yet.
func (db *DB) Compact(ctx context.Context, id sharevat.ShareID, before sharevat.Cursor) (sharevat.Cursor, error) {
	return 0, errPending("Compact")
}

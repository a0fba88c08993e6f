package vattest

import (
	"context"
	"sync/atomic"

	"github.com/sharevat/sharevat"
)

// ErrStoreDown is the error a DownStore that Down took down answers:
// unavailable (EUnavailable), as a store whose database or disk cannot be
// reached answers.
var ErrStoreDown = sharevat.Errorf(sharevat.EUnavailable, "injected: the store cannot be reached")

// DownStore wraps a real store that can be taken down on demand: while
// it is down, the calls a redeem (Grant, Share), an append and a read
// make fail with the error it was taken down with; every other call, and
// every call while it is up, goes to the real store. Use its Wrap as
// Options.Wrap (or any store wrapper hook):
//
//	ds := &vattest.DownStore{}
//	srv := vattest.Start(t, vattest.Options{Wrap: ds.Wrap})
//	ds.Down() // … ds.Up()
//
// It is safe for concurrent use.
type DownStore struct {
	sharevat.Store
	down atomic.Pointer[error]
}

// Wrap makes st the real store d passes calls to and returns d.
func (d *DownStore) Wrap(st sharevat.Store) sharevat.Store {
	d.Store = st
	return d
}

// Down takes the store down with ErrStoreDown.
func (d *DownStore) Down() { d.Fail(ErrStoreDown) }

// Fail takes the store down with err.
func (d *DownStore) Fail(err error) { d.down.Store(&err) }

// Up brings the store back: calls go to the real store again.
func (d *DownStore) Up() { d.down.Store(nil) }

// err is the error the store is down with, or nil while it is up.
func (d *DownStore) err() error {
	if p := d.down.Load(); p != nil {
		return *p
	}
	return nil
}

// Grant fails while the store is down.
func (d *DownStore) Grant(ctx context.Context, id sharevat.GrantID) (sharevat.Grant, error) {
	if err := d.err(); err != nil {
		return sharevat.Grant{}, err
	}
	return d.Store.Grant(ctx, id)
}

// Share fails while the store is down.
func (d *DownStore) Share(ctx context.Context, id sharevat.ShareID) (sharevat.Share, error) {
	if err := d.err(); err != nil {
		return sharevat.Share{}, err
	}
	return d.Store.Share(ctx, id)
}

// Append fails while the store is down.
func (d *DownStore) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	if err := d.err(); err != nil {
		return sharevat.Ack{}, err
	}
	return d.Store.Append(ctx, req)
}

// Read fails while the store is down.
func (d *DownStore) Read(ctx context.Context, id sharevat.ShareID, after sharevat.Cursor, limit int) ([]sharevat.Entry, sharevat.Cursor, error) {
	if err := d.err(); err != nil {
		return nil, 0, err
	}
	return d.Store.Read(ctx, id, after, limit)
}

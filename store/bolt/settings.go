package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Settings returns the share's settings (the zero value if never set).
// Errors: ENotFound (also for a deleted share).
func (db *DB) Settings(ctx context.Context, id sharevat.ShareID) (set sharevat.Settings, err error) {
	err = db.view(ctx, "settings", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		set = s.Settings
		return err
	})
	return core.OrZero(set, err)
}

// PutSettings replaces the share's settings and returns them as stored.
// Errors: ENotFound (also for a deleted share); EInvalid for an unknown
// privacy policy or a negative RetainFor.
func (db *DB) PutSettings(ctx context.Context, id sharevat.ShareID, set sharevat.Settings) (sharevat.Settings, error) {
	if err := core.CheckSettings(set); err != nil {
		return sharevat.Settings{}, err
	}
	err := db.update(ctx, "put settings", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		old := s
		s.Settings = set
		return putShare(tx, &old, &s)
	})
	return core.OrZero(set, err)
}

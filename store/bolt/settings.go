package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"sharevat"
)

// Settings returns the share's settings (the zero value if never set).
// Errors: ENotFound (also for a deleted share).
func (db *DB) Settings(ctx context.Context, id sharevat.ShareID) (set sharevat.Settings, err error) {
	err = db.view(ctx, "settings", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		set = s.Settings
		return err
	})
	return resultOrZero(set, err)
}

// PutSettings replaces the share's settings and returns them as stored.
// Errors: ENotFound (also for a deleted share); EInvalid for an unknown
// privacy policy or a negative RetainFor.
func (db *DB) PutSettings(ctx context.Context, id sharevat.ShareID, set sharevat.Settings) (sharevat.Settings, error) {
	if err := checkSettings(set); err != nil {
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
	return resultOrZero(set, err)
}

// checkSettings rejects settings no share may have.
func checkSettings(set sharevat.Settings) error {
	switch {
	case set.Privacy > sharevat.PrivacyOff:
		return sharevat.Errorf(sharevat.EInvalid, "unknown privacy policy %d", set.Privacy)
	case set.RetainFor < 0:
		return sharevat.Errorf(sharevat.EInvalid, "retention age %v is negative", set.RetainFor)
	}
	return nil
}

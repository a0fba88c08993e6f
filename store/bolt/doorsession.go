package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// The session index (sharevat.SessionIndex): door_sessions maps
// creator NUL session to the entry as JSON, door_session_shares maps a
// share id to its entry's key. Both are made by the first claim (a file
// without them has no entry), so no format change is needed.
var (
	bucketDoorSessions      = []byte("door_sessions")
	bucketDoorSessionShares = []byte("door_session_shares")
)

func doorSessionKey(creator, session string) []byte {
	return []byte(creator + "\x00" + session)
}

// ClaimSession stores s unless an entry of its creator and session is
// stored, and returns the stored entry. Errors: EInvalid.
func (db *DB) ClaimSession(ctx context.Context, s sharevat.DoorSession) (got sharevat.DoorSession, err error) {
	if err := core.CheckDoorSession(s); err != nil {
		return sharevat.DoorSession{}, err
	}
	err = db.update(ctx, "claim session", func(tx *bbolt.Tx) error {
		byKey, err := tx.CreateBucketIfNotExists(bucketDoorSessions)
		if err != nil {
			return err
		}
		byShare, err := tx.CreateBucketIfNotExists(bucketDoorSessionShares)
		if err != nil {
			return err
		}
		k := doorSessionKey(s.Creator, s.Session)
		if v := byKey.Get(k); v != nil {
			got, err = core.DecodeDoorSession(v)
			return err
		}
		got = s
		if err := byKey.Put(k, core.EncodeDoorSession(s)); err != nil {
			return err
		}
		return byShare.Put([]byte(s.Share), k)
	})
	return core.OrZero(got, err)
}

// DoorSession returns the entry of creator's session. Errors: ENotFound.
func (db *DB) DoorSession(ctx context.Context, creator, session string) (got sharevat.DoorSession, err error) {
	err = db.view(ctx, "door session", func(tx *bbolt.Tx) error {
		return getDoorSession(tx, doorSessionKey(creator, session), &got)
	})
	return core.OrZero(got, err)
}

// DoorSessionOf returns the entry naming share id. Errors: ENotFound.
func (db *DB) DoorSessionOf(ctx context.Context, id sharevat.ShareID) (got sharevat.DoorSession, err error) {
	err = db.view(ctx, "door session of", func(tx *bbolt.Tx) error {
		k := keyOfDoorShare(tx, id)
		if k == nil {
			return errNoDoorSession
		}
		return getDoorSession(tx, k, &got)
	})
	return core.OrZero(got, err)
}

// DropDoorSession removes the entry naming share id, if any.
func (db *DB) DropDoorSession(ctx context.Context, id sharevat.ShareID) error {
	return db.update(ctx, "drop door session", func(tx *bbolt.Tx) error {
		k := keyOfDoorShare(tx, id)
		if k == nil {
			return nil
		}
		k = append([]byte(nil), k...)
		if err := tx.Bucket(bucketDoorSessionShares).Delete([]byte(id)); err != nil {
			return err
		}
		var e sharevat.DoorSession
		if err := getDoorSession(tx, k, &e); err != nil || e.Share != id {
			return nil // the session names a newer share: keep it
		}
		return tx.Bucket(bucketDoorSessions).Delete(k)
	})
}

var errNoDoorSession = sharevat.Errorf(sharevat.ENotFound, "no door session")

func keyOfDoorShare(tx *bbolt.Tx, id sharevat.ShareID) []byte {
	b := tx.Bucket(bucketDoorSessionShares)
	if b == nil {
		return nil
	}
	return b.Get([]byte(id))
}

func getDoorSession(tx *bbolt.Tx, k []byte, e *sharevat.DoorSession) error {
	b := tx.Bucket(bucketDoorSessions)
	if b == nil {
		return errNoDoorSession
	}
	v := b.Get(k)
	if v == nil {
		return errNoDoorSession
	}
	var err error
	*e, err = core.DecodeDoorSession(v)
	return err
}

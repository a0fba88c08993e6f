package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// The session index (sharevat.SessionIndex) is the door_sessions table
// (migrations/006_door_sessions.sql), one row per creator and session.

// ClaimSession stores s unless a row of its creator and session exists,
// and returns the stored entry: the first claim wins, whichever vat made
// it. Errors: EInvalid.
func (st *Store) ClaimSession(ctx context.Context, s sharevat.DoorSession) (sharevat.DoorSession, error) {
	if err := core.CheckDoorSession(s); err != nil {
		return sharevat.DoorSession{}, err
	}
	v := core.EncodeDoorSession(s)
	var got []byte
	err := st.update(ctx, "claim session", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO door_sessions (creator, session, share_id, entry) VALUES ($1, $2, $3, $4)
			ON CONFLICT (creator, session) DO NOTHING`, []byte(s.Creator), []byte(s.Session), b(s.Share), v); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT entry FROM door_sessions WHERE creator = $1 AND session = $2",
			[]byte(s.Creator), []byte(s.Session)).Scan(&got)
	})
	if err != nil {
		return sharevat.DoorSession{}, err
	}
	return core.DecodeDoorSession(got)
}

// DoorSession returns the entry of creator's session. Errors: ENotFound.
func (st *Store) DoorSession(ctx context.Context, creator, session string) (sharevat.DoorSession, error) {
	return st.doorSession(ctx, "SELECT entry FROM door_sessions WHERE creator = $1 AND session = $2", []byte(creator), []byte(session))
}

// DoorSessionOf returns the entry naming share id. Errors: ENotFound.
func (st *Store) DoorSessionOf(ctx context.Context, id sharevat.ShareID) (sharevat.DoorSession, error) {
	return st.doorSession(ctx, "SELECT entry FROM door_sessions WHERE share_id = $1", b(id))
}

// DropDoorSession removes the row naming share id, if any.
func (st *Store) DropDoorSession(ctx context.Context, id sharevat.ShareID) error {
	return st.update(ctx, "drop door session", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "DELETE FROM door_sessions WHERE share_id = $1", b(id))
		return err
	})
}

func (st *Store) doorSession(ctx context.Context, sql string, args ...any) (sharevat.DoorSession, error) {
	var got []byte
	err := st.view(ctx, "door session", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, sql, args...).Scan(&got)
		if errors.Is(err, pgx.ErrNoRows) {
			return sharevat.Errorf(sharevat.ENotFound, "no door session")
		}
		return err
	})
	if err != nil {
		return sharevat.DoorSession{}, err
	}
	return core.DecodeDoorSession(got)
}

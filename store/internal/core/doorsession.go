package core

import (
	"encoding/json"
	"time"

	"github.com/sharevat/sharevat"
)

// doorSessionRecord is a sharevat.DoorSession as the stores keep it:
// the strings as bytes (JSON would replace invalid UTF-8, and a client's
// session id need not be UTF-8), the time as Unix nanoseconds.
type doorSessionRecord struct {
	Creator, Session, Share, Secret, Link []byte
	Max                                   int64
	Created                               int64
}

// EncodeDoorSession is the stored form of s.
func EncodeDoorSession(s sharevat.DoorSession) []byte {
	var created int64
	if !s.Created.IsZero() {
		created = s.Created.UnixNano()
	}
	b, _ := json.Marshal(doorSessionRecord{[]byte(s.Creator), []byte(s.Session), []byte(s.Share),
		[]byte(s.Secret), []byte(s.Link), s.Max, created})
	return b // marshalling byte slices and numbers cannot fail
}

// DecodeDoorSession reads what EncodeDoorSession wrote. Errors: a
// record that is not one.
func DecodeDoorSession(b []byte) (sharevat.DoorSession, error) {
	var r doorSessionRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return sharevat.DoorSession{}, sharevat.Errorf(sharevat.EInternal, "a door session entry is damaged")
	}
	s := sharevat.DoorSession{Creator: string(r.Creator), Session: string(r.Session), Share: sharevat.ShareID(r.Share),
		Secret: string(r.Secret), Link: string(r.Link), Max: r.Max}
	if r.Created != 0 {
		s.Created = time.Unix(0, r.Created).UTC()
	}
	return s, nil
}

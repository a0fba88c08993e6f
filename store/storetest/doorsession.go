package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
)

var doorSessionTests = []test{
	{"FirstClaimWins", testDoorSessionFirstClaimWins},
	{"ConcurrentClaimsAgree", testDoorSessionConcurrentClaims},
	{"DropFreesTheSession", testDoorSessionDrop},
	{"Errors", testDoorSessionErrors},
}

func doorSession(creator, session string, share sharevat.ShareID) sharevat.DoorSession {
	return sharevat.DoorSession{Creator: creator, Session: session, Share: share,
		Secret: "sealed-" + string(share), Link: "link-" + string(share), Max: 7, Created: at(100)}
}

func testDoorSessionFirstClaimWins(t *testing.T, st sharevat.Store) {
	first := doorSession("open", "ses_\xff", "s1") // a session id need not be UTF-8
	got, err := st.ClaimSession(t.Context(), first)
	ok(t, err)
	sameValue(t, "first claim", got, first)
	got, err = st.ClaimSession(t.Context(), doorSession("open", "ses_\xff", "s2"))
	ok(t, err)
	sameValue(t, "second claim of the session", got, first)
	third := doorSession("grant1", "ses_\xff", "s3")
	third.Created = time.Time{} // kept as the zero time
	other, err := st.ClaimSession(t.Context(), third)
	ok(t, err)
	sameValue(t, "another creator's claim", other, third)
	got, err = st.DoorSession(t.Context(), "open", "ses_\xff")
	ok(t, err)
	sameValue(t, "DoorSession", got, first)
	got, err = st.DoorSessionOf(t.Context(), "s3")
	ok(t, err)
	sameValue(t, "DoorSessionOf", got, other)
	if _, err := st.DoorSessionOf(t.Context(), "s2"); sharevat.ErrorCode(err) != sharevat.ENotFound {
		t.Fatalf("DoorSessionOf(the losing claim's share) = %v, want notFound", err)
	}
}

func testDoorSessionConcurrentClaims(t *testing.T, st sharevat.Store) {
	got := make([]sharevat.DoorSession, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			var err error
			got[i], err = st.ClaimSession(t.Context(), doorSession("open", "ses_1", sharevat.ShareID(rune('a'+i))))
			ok(t, err)
		})
	}
	wg.Wait()
	for i := range got {
		sameValue(t, "a concurrent claim's answer", got[i], got[0])
	}
}

func testDoorSessionDrop(t *testing.T, st sharevat.Store) {
	_, err := st.ClaimSession(t.Context(), doorSession("open", "ses_1", "s1"))
	ok(t, err)
	ok(t, st.DropDoorSession(t.Context(), "s1"))
	ok(t, st.DropDoorSession(t.Context(), "s1"))      // none: no error
	ok(t, st.DropDoorSession(t.Context(), "unknown")) // nor an unknown share
	if _, err := st.DoorSession(t.Context(), "open", "ses_1"); sharevat.ErrorCode(err) != sharevat.ENotFound {
		t.Fatalf("DoorSession after drop = %v, want notFound", err)
	}
	second := doorSession("open", "ses_1", "s2")
	got, err := st.ClaimSession(t.Context(), second)
	ok(t, err)
	sameValue(t, "a claim after drop", got, second)
}

func testDoorSessionErrors(t *testing.T, st sharevat.Store) {
	for _, s := range []sharevat.DoorSession{doorSession("", "x", "s"), doorSession("c", "", "s"), doorSession("c", "x", "")} {
		if _, err := st.ClaimSession(t.Context(), s); sharevat.ErrorCode(err) != sharevat.EInvalid {
			t.Fatalf("ClaimSession(%+v) = %v, want invalid", s, err)
		}
	}
	if _, err := st.DoorSession(t.Context(), "c", "x"); sharevat.ErrorCode(err) != sharevat.ENotFound {
		t.Fatalf("DoorSession on an empty store = %v, want notFound", err)
	}
}

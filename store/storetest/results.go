package storetest

import (
	"slices"
	"testing"

	"github.com/sharevat/sharevat"
)

// res is the expected outcome of one op.
type res struct {
	status sharevat.OpStatus
	cursor sharevat.Cursor
	reason sharevat.Reason
}

func applied(c sharevat.Cursor) res { return res{status: sharevat.StatusApplied, cursor: c} }
func dup(c sharevat.Cursor) res     { return res{status: sharevat.StatusDuplicate, cursor: c} }

// rejected expects a rejection without a cursor.
func rejected(r sharevat.Reason) res { return res{status: sharevat.StatusRejected, reason: r} }

// reused expects an idReused rejection naming the original cursor.
func reused(c sharevat.Cursor) res {
	return res{status: sharevat.StatusRejected, cursor: c, reason: sharevat.ReasonIDReused}
}

// checkAck fails t unless ack has head and, op by op, the wanted results
// and consistent counts.
func checkAck(t *testing.T, ack sharevat.Ack, b *sharevat.Batch, head sharevat.Cursor, want ...res) {
	t.Helper()
	if len(ack.Results) != len(want) {
		t.Fatalf("ack has %d results, want %d: %+v", len(ack.Results), len(want), ack.Results)
	}
	counts := map[sharevat.OpStatus]int{}
	for i, w := range want {
		r := ack.Results[i]
		got := res{status: r.Status, cursor: r.Cursor, reason: r.Reason}
		if got != w || r.OpID != b.Ops[i].OpID {
			t.Errorf("result %d (op %q) = %+v (%s %s: %s), want %+v", i, r.OpID, got, r.Status, r.Reason, r.Message, w)
		}
		if w.status == sharevat.StatusRejected && r.Message == "" {
			t.Errorf("result %d: rejection without a message", i)
		}
		counts[w.status]++
	}
	if ack.Head != head {
		t.Errorf("ack head = %d, want %d", ack.Head, head)
	}
	if ack.Applied != counts[sharevat.StatusApplied] || ack.Duplicates != counts[sharevat.StatusDuplicate] || ack.Rejected != counts[sharevat.StatusRejected] {
		t.Errorf("ack counts = %d/%d/%d, want %v", ack.Applied, ack.Duplicates, ack.Rejected, counts)
	}
}

// readAll returns the whole log of share and its head.
func readAll(t *testing.T, st sharevat.Store, share string) ([]sharevat.Entry, sharevat.Cursor) {
	t.Helper()
	var all []sharevat.Entry
	var after sharevat.Cursor
	for {
		page, head, err := st.Read(t.Context(), sharevat.ShareID(share), after, 100)
		if err != nil {
			t.Fatalf("Read(%s): %v", share, err)
		}
		if len(page) == 0 {
			return all, head
		}
		all = append(all, page...)
		after = page[len(page)-1].Cursor
	}
}

// checkLog fails t unless share's log holds exactly the op ids, at
// cursors 1..n, and its head (from Read and from Share) is n.
func checkLog(t *testing.T, st sharevat.Store, share string, opIDs ...string) {
	t.Helper()
	entries, head := readAll(t, st, share)
	var got []string
	for i, e := range entries {
		got = append(got, e.OpID)
		if e.Cursor != sharevat.Cursor(i+1) {
			t.Errorf("entry %d has cursor %d, want %d", i, e.Cursor, i+1)
		}
	}
	if !slices.Equal(got, opIDs) {
		t.Errorf("log op ids = %q, want %q", got, opIDs)
	}
	s, err := st.Share(t.Context(), sharevat.ShareID(share))
	ok(t, err)
	if want := sharevat.Cursor(len(opIDs)); head != want || s.Head != want {
		t.Errorf("head = %d (Read) / %d (Share), want %d", head, s.Head, want)
	}
}

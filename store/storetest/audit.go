package storetest

import (
	"fmt"
	"testing"

	"github.com/sharevat/sharevat"
)

var auditTests = []test{
	{"AssignsSeq", testAuditSeq},
	{"Paging", testAuditPaging},
	{"ByShare", testAuditByShare},
	{"Errors", testAuditErrors},
}

// rec returns an audit record of share at second n.
func rec(share string, n int) sharevat.AuditRecord {
	return sharevat.AuditRecord{
		At: at(n), Action: sharevat.AuditMint, ShareID: sharevat.ShareID(share),
		GrantID: sharevat.GrantID(fmt.Sprintf("g%d", n)), Parent: "p", Scope: sharevat.ScopeRead,
		Epoch: 1, Peer: "10.0.0.1:5000", Result: "ok",
	}
}

// auditLog fetches records and fails t on error.
func auditLog(t *testing.T, st sharevat.Store, share string, after uint64, limit int) []sharevat.AuditRecord {
	t.Helper()
	recs, err := st.AuditLog(t.Context(), sharevat.ShareID(share), after, limit)
	ok(t, err)
	return recs
}

func testAuditSeq(t *testing.T, st sharevat.Store) {
	if got := auditLog(t, st, "", 0, 10); len(got) != 0 {
		t.Fatalf("AuditLog of an empty store = %+v, want none", got)
	}
	ok(t, st.Audit(t.Context()))
	in := []sharevat.AuditRecord{rec("s", 1), rec("", 2), rec("s", 3)}
	in[1].Action, in[1].Result = sharevat.AuditRedeem, "unauthorized"
	ok(t, st.Audit(t.Context(), in[0], in[1]))
	ok(t, st.Audit(t.Context(), in[2]))
	got := auditLog(t, st, "", 0, 10)
	if len(got) != 3 {
		t.Fatalf("AuditLog = %d records, want 3", len(got))
	}
	var last uint64
	for i := range got {
		if got[i].Seq <= last {
			t.Errorf("record %d has seq %d after seq %d; want increasing", i, got[i].Seq, last)
		}
		last = got[i].Seq
		in[i].Seq = got[i].Seq
	}
	sameValue(t, "audit log", got, in)
}

func testAuditPaging(t *testing.T, st sharevat.Store) {
	for i := 1; i <= 5; i++ {
		ok(t, st.Audit(t.Context(), rec("s", i)))
	}
	var got []string
	var after uint64
	for page := auditLog(t, st, "", after, 2); len(page) > 0; page = auditLog(t, st, "", after, 2) {
		if len(page) > 2 {
			t.Fatalf("page of %d records with limit 2", len(page))
		}
		for _, r := range page {
			got = append(got, string(r.GrantID))
		}
		after = page[len(page)-1].Seq
	}
	if fmt.Sprint(got) != "[g1 g2 g3 g4 g5]" {
		t.Errorf("paged audit log = %v, want [g1 g2 g3 g4 g5]", got)
	}
	if page := auditLog(t, st, "", ^uint64(0), 2); len(page) != 0 {
		t.Errorf("AuditLog after the largest seq = %+v, want none", page)
	}
}

func testAuditByShare(t *testing.T, st sharevat.Store) {
	ok(t, st.Audit(t.Context(), rec("a", 1), rec("b", 2), rec("", 3), rec("a", 4), rec("ab", 5), rec("a", 6)))
	ids := func(recs []sharevat.AuditRecord) string {
		var s []string
		for _, r := range recs {
			s = append(s, string(r.GrantID))
		}
		return fmt.Sprint(s)
	}
	all := auditLog(t, st, "", 0, 100)
	if len(all) != 6 {
		t.Fatalf("AuditLog = %d records, want 6", len(all))
	}
	for _, tc := range []struct {
		share string
		after uint64
		limit int
		want  string
	}{
		{"a", 0, 100, "[g1 g4 g6]"},
		{"a", 0, 2, "[g1 g4]"},
		{"a", all[0].Seq, 100, "[g4 g6]"},
		{"a", all[3].Seq, 100, "[g6]"},
		{"ab", 0, 100, "[g5]"},
		{"b", all[1].Seq, 100, "[]"},
		{"none", 0, 100, "[]"},
		{"", all[4].Seq, 100, "[g6]"},
	} {
		if got := ids(auditLog(t, st, tc.share, tc.after, tc.limit)); got != tc.want {
			t.Errorf("AuditLog(%q, after %d, limit %d) = %s, want %s", tc.share, tc.after, tc.limit, got, tc.want)
		}
	}
}

func testAuditErrors(t *testing.T, st sharevat.Store) {
	for _, limit := range []int{0, -1} {
		_, err := st.AuditLog(t.Context(), "", 0, limit)
		wantCode(t, err, sharevat.EInvalid)
	}
}

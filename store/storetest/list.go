package storetest

import (
	"fmt"
	"testing"

	"github.com/sharevat/sharevat"
)

var listTests = []test{
	{"NewestUpdateFirst", testListNewestFirst},
	{"AppendMovesUpdate", testListAppendMovesUpdate},
	{"Filters", testListFilters},
	{"Paging", testListPaging},
	{"PageTokenStable", testListPageTokenStable},
	{"Errors", testListErrors},
}

var statusTests = []test{
	{"Statuses", testStatuses},
}

var settingsTests = []test{
	{"DefaultAndPut", testSettings},
	{"Errors", testSettingsErrors},
	{"KeptByOtherWrites", testSettingsKept},
}

// shareAt creates share id updated at second n, with the given project
// and directory.
func shareAt(t *testing.T, st sharevat.Store, id, project, dir string, n int) {
	t.Helper()
	s, owner := newShare(id)
	s.Meta.ProjectID, s.Meta.Directory, s.Meta.UpdatedAt = project, dir, at(n)
	ok(t, st.CreateShare(t.Context(), s, owner))
}

// list returns the ids of one page and its next token.
func list(t *testing.T, st sharevat.Store, f sharevat.ListFilter) ([]sharevat.ShareID, string) {
	t.Helper()
	page, next, err := st.ListShares(t.Context(), f)
	ok(t, err)
	for _, s := range page {
		one, err := st.Share(t.Context(), s.ID)
		ok(t, err)
		sameValue(t, "listed share "+string(s.ID), s, one)
	}
	return ids(page), next
}

func testListNewestFirst(t *testing.T, st sharevat.Store) {
	got, next := list(t, st, sharevat.ListFilter{})
	if len(got) != 0 || next != "" {
		t.Fatalf("list of an empty store = %v, %q; want nothing", got, next)
	}
	shareAt(t, st, "a", "p", "/a", 10)
	shareAt(t, st, "b", "p", "/b", 30)
	shareAt(t, st, "c", "p", "/c", 20)
	shareAt(t, st, "d", "p", "/d", 30) // the same time as b: by id
	got, next = list(t, st, sharevat.ListFilter{})
	sameValue(t, "list", got, []sharevat.ShareID{"b", "d", "c", "a"})
	if next != "" {
		t.Errorf("next page token of a whole list = %q, want none", next)
	}
	title := "moved"
	_, err := st.UpdateMeta(t.Context(), "a", sharevat.MetaPatch{Title: &title}, at(40))
	ok(t, err)
	got, _ = list(t, st, sharevat.ListFilter{})
	sameValue(t, "list after updating a", got, []sharevat.ShareID{"a", "b", "d", "c"})
}

// testListAppendMovesUpdate: an append that applies ops moves the
// share's update time (and its place in the list); one that applies
// nothing does not.
func testListAppendMovesUpdate(t *testing.T, st sharevat.Store) {
	shareAt(t, st, "a", "p", "/a", 10)
	shareAt(t, st, "b", "p", "/b", 20)
	appendAt(t, st, "a", batch(1, ev("x")), 50)
	s, err := st.Share(t.Context(), "a")
	ok(t, err)
	if !s.Meta.UpdatedAt.Equal(at(50)) {
		t.Errorf("UpdatedAt after an append at %v = %v", at(50), s.Meta.UpdatedAt)
	}
	got, _ := list(t, st, sharevat.ListFilter{})
	sameValue(t, "list after appending to a", got, []sharevat.ShareID{"a", "b"})
	appendAt(t, st, "a", batch(1, ev("x")), 60) // a duplicate only
	appendAt(t, st, "a", batch(2, ev("y")), 70) // rejected only
	appendAt(t, st, "b", batch(1, ev("z")), 45) // earlier than a's
	appendAt(t, st, "a", batch(1, ev("w")), 40) // a clock gone back
	got, _ = list(t, st, sharevat.ListFilter{})
	sameValue(t, "list after appends that apply nothing", got, []sharevat.ShareID{"a", "b"})
	s, err = st.Share(t.Context(), "a")
	ok(t, err)
	if !s.Meta.UpdatedAt.Equal(at(50)) {
		t.Errorf("UpdatedAt after appends that applied nothing or went back = %v, want %v", s.Meta.UpdatedAt, at(50))
	}
}

func testListFilters(t *testing.T, st sharevat.Store) {
	shareAt(t, st, "a", "p1", "/x", 10)
	shareAt(t, st, "b", "p1", "/y", 20)
	shareAt(t, st, "c", "p2", "/x", 30)
	shareAt(t, st, "gone", "p1", "/x", 40)
	appendEvents(t, st, "a", 2)
	s, owner := forkShare("f")
	s.Meta.ProjectID, s.Meta.Directory = "p2", "/y"
	_, err := st.Fork(t.Context(), "a", 1, s, owner)
	ok(t, err)
	_, err = st.UpdateMeta(t.Context(), "b", sharevat.MetaPatch{Status: sharevat.StatusBusy}, at(5))
	ok(t, err)
	ok(t, st.Delete(t.Context(), "gone", at(300)))
	// Times now: a 100 (its append), f 200, b 5, c 30, gone 40.
	for _, tc := range []struct {
		name string
		f    sharevat.ListFilter
		want []sharevat.ShareID
	}{
		{"none", sharevat.ListFilter{}, []sharevat.ShareID{"f", "a", "c", "b"}},
		{"project", sharevat.ListFilter{ProjectID: "p1"}, []sharevat.ShareID{"a", "b"}},
		{"directory", sharevat.ListFilter{Directory: "/x"}, []sharevat.ShareID{"a", "c"}},
		{"status busy", sharevat.ListFilter{Status: sharevat.StatusBusy}, []sharevat.ShareID{"b"}},
		{"status idle", sharevat.ListFilter{Status: sharevat.StatusIdle}, []sharevat.ShareID{"f", "a", "c"}},
		{"parent", sharevat.ListFilter{ParentID: "a"}, []sharevat.ShareID{"f"}},
		{"with deleted", sharevat.ListFilter{WithDeleted: true}, []sharevat.ShareID{"f", "a", "gone", "c", "b"}},
		{"project and directory, with deleted", sharevat.ListFilter{ProjectID: "p1", Directory: "/x", WithDeleted: true}, []sharevat.ShareID{"a", "gone"}},
		{"nothing matches", sharevat.ListFilter{ProjectID: "p3"}, []sharevat.ShareID{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, next := list(t, st, tc.f)
			sameValue(t, "list", got, tc.want)
			if next != "" {
				t.Errorf("next page token = %q, want none", next)
			}
		})
	}
}

// testListPaging pages through 23 shares, 13 of them matching, by 4: the
// pages are the whole list in order, the last token is empty, and a page
// that ends exactly at the last match has none.
func testListPaging(t *testing.T, st sharevat.Store) {
	var want []sharevat.ShareID
	for i := range 23 {
		project := "odd"
		if i%2 == 0 || i%5 == 0 {
			project = "even-ish"
		}
		id := fmt.Sprintf("s%02d", i)
		shareAt(t, st, id, project, "/", 100-i/2) // pairs share a time
		if project == "even-ish" {
			want = append(want, sharevat.ShareID(id))
		}
	}
	for _, limit := range []int{1, 4, 13, 14, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			var got []sharevat.ShareID
			f := sharevat.ListFilter{ProjectID: "even-ish", Limit: limit}
			for pages := 0; ; pages++ {
				page, next := list(t, st, f)
				if len(page) > limit || (next != "" && len(page) != limit) || pages > len(want) {
					t.Fatalf("page %d: %d shares, next %q (limit %d)", pages, len(page), next, limit)
				}
				got = append(got, page...)
				if next == "" {
					break
				}
				f.PageToken = next
			}
			sameValue(t, "pages together", got, want)
		})
	}
}

// testListPageTokenStable: a token resumes after the last share of its
// page, whatever was created or updated meanwhile.
func testListPageTokenStable(t *testing.T, st sharevat.Store) {
	for i, id := range []string{"a", "b", "c", "d"} {
		shareAt(t, st, id, "p", "/", 40-i)
	}
	first, next := list(t, st, sharevat.ListFilter{Limit: 2})
	sameValue(t, "first page", first, []sharevat.ShareID{"a", "b"})
	shareAt(t, st, "new", "p", "/", 50) // newer than the page: not in the rest
	ok(t, st.Delete(t.Context(), "c", at(300)))
	rest, again := list(t, st, sharevat.ListFilter{Limit: 2, PageToken: next})
	sameValue(t, "second page", rest, []sharevat.ShareID{"d"})
	if again != "" {
		t.Errorf("token after the last page = %q, want none", again)
	}
	rest, _ = list(t, st, sharevat.ListFilter{Limit: 2, PageToken: next})
	sameValue(t, "second page again, same token", rest, []sharevat.ShareID{"d"})
}

func testListErrors(t *testing.T, st sharevat.Store) {
	shareAt(t, st, "a", "p", "/", 10)
	_, next, err := st.ListShares(t.Context(), sharevat.ListFilter{Limit: 1})
	ok(t, err)
	if next != "" {
		t.Fatalf("next token of a one-share list = %q", next)
	}
	for name, f := range map[string]sharevat.ListFilter{
		"negative limit":   {Limit: -1},
		"unknown status":   {Status: sharevat.Status(9)},
		"made-up token":    {PageToken: "not a token"},
		"token of nothing": {PageToken: "AQ"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := st.ListShares(t.Context(), f)
			wantCode(t, err, sharevat.EInvalid)
		})
	}
}

func testStatuses(t *testing.T, st sharevat.Store) {
	got, err := st.Statuses(t.Context())
	ok(t, err)
	if len(got) != 0 {
		t.Fatalf("statuses of an empty store = %v", got)
	}
	mustShare(t, st, "b")
	mustShare(t, st, "a")
	mustShare(t, st, "gone")
	mustFork(t, st, "a", "c", 0)
	_, err = st.UpdateMeta(t.Context(), "b", sharevat.MetaPatch{Status: sharevat.StatusError}, at(60))
	ok(t, err)
	title := "renamed"
	_, err = st.UpdateMeta(t.Context(), "a", sharevat.MetaPatch{Title: &title}, at(61))
	ok(t, err)
	ok(t, st.Delete(t.Context(), "gone", at(300)))
	got, err = st.Statuses(t.Context())
	ok(t, err)
	sameValue(t, "statuses", got, []sharevat.ShareStatus{
		{ID: "a", Title: "renamed", Status: sharevat.StatusIdle},
		{ID: "b", Title: "title b", Status: sharevat.StatusError, StatusAt: at(60)},
		{ID: "c", Title: "fork c", Status: sharevat.StatusIdle},
	})
}

func testSettings(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	got, err := st.Settings(t.Context(), "s")
	ok(t, err)
	sameValue(t, "default settings", got, sharevat.Settings{})
	want := sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 500, RetainFor: 36 * 3600e9}
	put, err := st.PutSettings(t.Context(), "s", want)
	ok(t, err)
	sameValue(t, "settings put", put, want)
	got, err = st.Settings(t.Context(), "s")
	ok(t, err)
	sameValue(t, "settings read back", got, want)
	s, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "the share's settings", s.Settings, want)
	_, err = st.PutSettings(t.Context(), "s", sharevat.Settings{Privacy: sharevat.PrivacyOff})
	ok(t, err)
	got, err = st.Settings(t.Context(), "s")
	ok(t, err)
	sameValue(t, "settings replaced whole", got, sharevat.Settings{Privacy: sharevat.PrivacyOff})

	c, owner := newShare("created")
	c.Settings = want
	ok(t, st.CreateShare(t.Context(), c, owner))
	got, err = st.Settings(t.Context(), "created")
	ok(t, err)
	sameValue(t, "settings given at creation", got, want)
}

func testSettingsErrors(t *testing.T, st sharevat.Store) {
	_, err := st.Settings(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
	_, err = st.PutSettings(t.Context(), "nope", sharevat.Settings{})
	wantCode(t, err, sharevat.ENotFound)
	mustShare(t, st, "s")
	for _, set := range []sharevat.Settings{{Privacy: 3}, {RetainFor: -1}} {
		_, err = st.PutSettings(t.Context(), "s", set)
		wantCode(t, err, sharevat.EInvalid)
	}
	c, owner := newShare("c")
	c.Settings.Privacy = 7
	wantCode(t, st.CreateShare(t.Context(), c, owner), sharevat.EInvalid)
	got, err := st.Settings(t.Context(), "s")
	ok(t, err)
	sameValue(t, "settings after refused puts", got, sharevat.Settings{})
}

// testSettingsKept: updates, epoch bumps, appends and compactions leave
// the settings alone.
func testSettingsKept(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	want := sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 3}
	_, err := st.PutSettings(t.Context(), "s", want)
	ok(t, err)
	title := "t"
	_, err = st.UpdateMeta(t.Context(), "s", sharevat.MetaPatch{Title: &title, Status: sharevat.StatusBusy}, at(50))
	ok(t, err)
	appendEvents(t, st, "s", 4)
	_, err = st.Compact(t.Context(), "s", 3)
	ok(t, err)
	_, err = st.BumpEpoch(t.Context(), "s", ownerGrant("s", "s-owner-2", 2))
	ok(t, err)
	got, err := st.Settings(t.Context(), "s")
	ok(t, err)
	sameValue(t, "settings after other writes", got, want)
}

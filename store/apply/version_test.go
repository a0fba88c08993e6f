package apply_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/store/apply"
)

func TestStamp(t *testing.T) {
	for _, tc := range []struct {
		body string
		want float64
	}{
		{`{"id":"ses","time":{"created":1000,"updated":3000}}`, 3000},
		{`{"id":"prt","state":{"status":"completed","time":{"start":5000,"end":6000}}}`, 6000},
		{`{"time":{"start":7},"state":{"time":{"end":9}}}`, 9},
		{`{"time":"yesterday","state":{"time":{"end":9}}}`, 9},
		{`{"time":{"created":"x","updated":4}}`, 4},
		{`{"state":"running","time":{"start":2}}`, 2},
		{`{"nested":{"time":{"created":5}}}`, 0},
		{`[{"time":{"created":5}}]`, 0},
		{`{"title":"no time"}`, 0},
		{`not json`, 0},
		{``, 0},
	} {
		assert.Equal(t, tc.want, apply.Stamp([]byte(tc.body)), tc.body)
	}
}

// TestSupersedesIsOrderFree: the rule is a total order over versions, so
// folding the versions of one key in any order ends on the same one;
// Version.Supersedes decides as Supersedes.
func TestSupersedesIsOrderFree(t *testing.T) {
	versions := []string{
		`{"id":"m","time":{"created":10}}`,
		`{"id":"m","time":{"created":10},"summary":{"diffs":[]}}`,
		`{"id":"m","time":{"created":10},"summary":{"diffs":[1]}}`,
		`{"id":"m","time":{"created":10,"completed":20}}`,
		`{"id":"n","time":{"created":10,"completed":20}}`,
	}
	var want string
	for _, perm := range permutations(len(versions)) {
		cur := versions[perm[0]]
		for _, i := range perm[1:] {
			next := versions[i]
			got := apply.Supersedes([]byte(next), []byte(cur))
			assert.Equal(t, got, apply.VersionOf([]byte(next)).Supersedes(apply.VersionOf([]byte(cur))), "%s over %s", next, cur)
			if got {
				cur = next
			}
		}
		if want == "" {
			want = cur
		}
		assert.Equal(t, want, cur, "order %v", perm)
	}
}

// TestSupersedesWithoutStamp: bodies without a stamp keep last-write-wins;
// a stamped body is newer than one without.
func TestSupersedesWithoutStamp(t *testing.T) {
	assert.True(t, apply.Supersedes([]byte(`{"v":1}`), []byte(`{"v":2}`)))
	assert.True(t, apply.Supersedes([]byte(`[]`), []byte(`[1,2,3]`)))
	assert.False(t, apply.Supersedes([]byte(`{"v":1}`), []byte(`{"time":{"created":1}}`)))
	assert.True(t, apply.Supersedes([]byte(`{"time":{"created":1}}`), []byte(`{"v":1}`)))
	assert.True(t, apply.Supersedes([]byte(`{"time":{"created":1}}`), []byte(`{"time":{"created":1}}`)), "an equal body: the later op")
}

// permutations lists every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

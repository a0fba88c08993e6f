package apply_test

import (
	"bytes"
	"encoding/json"
	"strings"
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
		{`{"text":"a \"time\":{\"x\":99}","time":{"start":5}}`, 5},
		{`{"text":"ends in a backslash \\","time":{"start":5}}`, 5},
		{`{"text":"\\\"","time" : { "start" : 5 , "end":6e3 } }`, 6000},
		{`{"parts":[{"time":{"end":99}}],"time":{"start":5}}`, 5},
		{`{"time":{"start":5}`, 5},
		{`{"Time":{"start":5}}`, 0},
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

// BenchmarkSupersedes weighs a streamed text part (~4 KiB) against its
// previous version, the common case of every state upsert's fold.
func BenchmarkSupersedes(b *testing.B) {
	text := strings.Repeat("the quick brown fox ", 200)
	cur := []byte(`{"id":"prt_1","messageID":"msg_1","type":"text","text":"` + text + `","time":{"start":1763950001020}}`)
	next := []byte(`{"id":"prt_1","messageID":"msg_1","type":"text","text":"` + text + `more","time":{"start":1763950001020}}`)
	for b.Loop() {
		if !apply.Supersedes(next, cur) {
			b.Fatal("the longer version does not supersede")
		}
	}
}

// FuzzStamp: any bytes (a stored body is JSON, but Stamp must never
// trust that) give a stamp without a panic, and a body and the same
// body with spaces around its tokens give the same stamp.
func FuzzStamp(f *testing.F) {
	for _, s := range []string{`{"time":{"start":5}}`, `{"state":{"time":{"end":6}}}`, `{"a":"\\"","time":{"x":1}}`, `{"time":{`, `"`, `{"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := apply.Stamp(body)
		var spaced bytes.Buffer
		if json.Valid(body) && json.Indent(&spaced, body, " ", "  ") == nil {
			assert.Equal(t, got, apply.Stamp(spaced.Bytes()), "%s", body)
		}
	})
}

package opencode_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// The door's cost (docs/opencode.md): a full sync of a 200-message,
// 1,000-part session (~2 MB) and rounds of small batches from 64
// sessions at once, each beside the same ops appended through /capnweb
// (an HTTP batch: restore, appender, append) on the same server, the
// ceiling. Run with
//
//	go test -run '^$' -bench 'Door' -benchtime 5x ./opencodeshare/

// benchItem is one opencode item and the op /capnweb appends for it.
type benchItem struct {
	json string // {"type","data"} as opencode sends it
	op   string // the same as a Cap'n Web op object
}

// session builds the items of a session of msgs messages with parts
// parts each, every part ~1.7 KB of text (no arrays: Cap'n Web escapes
// those).
func session(id string, msgs, parts, round int) []benchItem {
	var out []benchItem
	add := func(kind, key, data string) {
		out = append(out, benchItem{
			json: `{"type":"` + kind + `","data":` + data + `}`,
			op:   fmt.Sprintf(`{"opId":"cw:%s:%s:%d","kind":%q,"key":%q,"body":%s}`, kind, key, round, kind, key, data),
		})
	}
	add("session", id, fmt.Sprintf(`{"id":%q,"title":"bench","time":{"created":1,"updated":%d}}`, id, 2+round))
	text := strings.Repeat("lorem ipsum dolor sit amet ", 64)
	for m := range msgs {
		mid := fmt.Sprintf("msg_%04d", m)
		add("message", mid, fmt.Sprintf(`{"id":%q,"sessionID":%q,"role":"assistant","time":{"created":%d,"completed":%d}}`, mid, id, 10+m, 20+m+round))
		for p := range parts {
			pid := fmt.Sprintf("prt_%04d_%d", m, p)
			add("part", mid+"/"+pid, fmt.Sprintf(`{"id":%q,"messageID":%q,"type":"text","text":"%s%d","time":{"start":%d}}`, pid, mid, text, round, 10+m+round))
		}
	}
	return out
}

// benchServer starts a server with the default configuration.
func benchServer(b *testing.B) *servertest.Server {
	return servertest.Start(b, servertest.Options{})
}

func post(b *testing.B, url, body string) []byte {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(b, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(b, err)
	require.Equal(b, http.StatusOK, resp.StatusCode, "%.300s", out)
	return out
}

// doorShare creates a share through the door with a creation token.
func doorShare(b *testing.B, base, session string) share {
	var sh share
	require.NoError(b, json.Unmarshal(post(b, base+"/api/share", `{"sessionID":"`+session+`"}`), &sh))
	return sh
}

// doorSync posts items as one sync.
func doorSync(b *testing.B, base string, sh share, items []benchItem) {
	var sb strings.Builder
	sb.WriteString(`{"secret":"` + sh.Secret + `","data":[`)
	for i, it := range items {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(it.json)
	}
	sb.WriteString("]}")
	var ans struct{ Applied int }
	require.NoError(b, json.Unmarshal(post(b, base+"/api/share/"+sh.ID+"/sync", sb.String()), &ans))
	require.Equal(b, len(items), ans.Applied, "every item of the sync is new")
}

// webAppend appends items through /capnweb with the share's secret, in
// appends of at most 1,000 ops (the vat's batch limit), as one HTTP
// batch.
func webAppend(b *testing.B, s *servertest.Server, token string, items []benchItem) {
	lines := []string{
		fmt.Sprintf(`["push",["pipeline",0,["restore"],[%q]]]`, token),
		`["push",["pipeline",1,["share","appender"],[]]]`,
	}
	for chunk := range slices.Chunk(items, 1000) {
		ops := make([]string, len(chunk))
		for i, it := range chunk {
			ops[i] = it.op
		}
		lines = append(lines, `["push",["pipeline",2,["append"],[{"epoch":["pipeline",1,["access","epoch"]],"ops":[[`+strings.Join(ops, ",")+`]]}]]]`)
	}
	lines = append(lines, fmt.Sprintf(`["pull",%d]`, len(lines)))
	out := post(b, s.HTTP+"/capnweb", strings.Join(lines, "\n"))
	require.NotContains(b, string(out), `"error"`, "%.300s", out)
}

// BenchmarkDoorFullSync: one sync of a whole 200-message, 1,000-part
// session into a new share, through the door and through /capnweb.
func BenchmarkDoorFullSync(b *testing.B) {
	s := benchServer(b)
	m := mintB(b, s)
	base := s.HTTP + "/opencode/" + m
	for _, door := range []string{"door", "capnweb"} {
		b.Run(door, func(b *testing.B) {
			var n int
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := fmt.Sprintf("ses_full_%s_%d", door, i)
				items := session(id, 200, 5, 0)
				sh := doorShare(b, base, id)
				n = len(items)
				b.StartTimer()
				if door == "door" {
					doorSync(b, base, sh, items)
				} else {
					webAppend(b, s, sh.Secret, items)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkDoorStream: 64 sessions at once, each sending rounds of a
// small batch (its session, one message, its 5 parts, all changed),
// opencode's 1 s debounce without the wait; p50 and p99 per batch.
func BenchmarkDoorStream(b *testing.B) {
	s := benchServer(b)
	m := mintB(b, s)
	base := s.HTTP + "/opencode/" + m
	const sessions = 64
	for _, door := range []string{"door", "capnweb"} {
		b.Run(door, func(b *testing.B) {
			shares := make([]share, sessions)
			for i := range shares {
				shares[i] = doorShare(b, base, fmt.Sprintf("ses_stream_%s_%d", door, i))
			}
			var mu sync.Mutex
			var lat []time.Duration
			items := 0
			b.ResetTimer()
			for round := 0; b.Loop(); round++ {
				var wg sync.WaitGroup
				for i := range shares {
					wg.Add(1)
					go func() {
						defer wg.Done()
						its := session(fmt.Sprintf("ses_stream_%s_%d", door, i), 1, 5, round)
						start := time.Now()
						if door == "door" {
							doorSync(b, base, shares[i], its)
						} else {
							webAppend(b, s, shares[i].Secret, its)
						}
						mu.Lock()
						lat = append(lat, time.Since(start))
						items += len(its)
						mu.Unlock()
					}()
				}
				wg.Wait()
			}
			slices.Sort(lat)
			b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// mintB mints an unlimited creation token.
func mintB(b *testing.B, s *servertest.Server) string {
	req, err := http.NewRequest("POST", s.HTTP+"/opencode-tokens", strings.NewReader(`{"name":"bench"}`))
	require.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+s.Admin)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	var m struct{ Token string }
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&m))
	return m.Token
}

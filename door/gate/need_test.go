package gate_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/rpc"
)

// A share token without the door's Need scope (a public read link sent
// as a sync's secret) is refused like any bad token, before its body is
// charged: the budget here could not hold the declared body, so a charge
// would answer 503, and a read would wait for the withheld body.
func TestNeedRefusedBeforeCharge(t *testing.T) {
	pool := rpc.NewMemoryPool(10)
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", Need: sharevat.ScopeAppend, Budget: pool}, nil)
	owner := f.vat.MustCreate(t, "s")
	reader, err := f.vat.MustRestore(t, owner).Grant(ctxT(t), sharevat.ScopeRead, 0, "public")
	require.NoError(t, err)
	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+"/", pr)
	require.NoError(t, err)
	req.ContentLength = 1 << 20
	req.Header.Set("Authorization", "Bearer "+reader.Token)
	res, err := http.DefaultClient.Do(req) // the body is never written
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "a read-only token at an append door: %s", b)
	require.Equal(t, unauthorized, strings.TrimSpace(string(b)))
	require.Equal(t, int64(0), pool.Used())
	require.Empty(t, f.door)
}

// Refuse writes every refusal in the door's format, with the gate's
// headers already set.
func TestRefuseWriter(t *testing.T) {
	refuse := func(w http.ResponseWriter, status int, text string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": text})
	}
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", MaxBody: 16, Challenge: "Bearer", Refuse: refuse}, nil)
	for _, c := range []struct {
		body   string
		status int
		prefix string
	}{{`{}`, http.StatusUnauthorized, "unauthorized: "}, {strings.Repeat("y", 17), http.StatusRequestEntityTooLarge, "tooLarge: "}} {
		status, text, h := f.post(t, "garbage", "/", c.body)
		require.Equal(t, c.status, status)
		require.Equal(t, "application/json", h.Get("Content-Type"))
		var got map[string]string
		require.NoError(t, json.Unmarshal([]byte(text), &got), "a JSON answer: %s", text)
		require.True(t, strings.HasPrefix(got["error"], c.prefix), got["error"])
		if status == http.StatusUnauthorized {
			require.Equal(t, "Bearer", h.Get("WWW-Authenticate"))
		}
	}
}

// The body's deadline grows as it arrives: a 1 MiB body whose first
// 512 KiB came (8 s earned) may pause past BodyTimeout and still arrive.
func TestBodyDeadlineGrowsWithSize(t *testing.T) {
	const base = 100 * time.Millisecond
	f := startGate(t, vattest.Options{}, gate.Options{Door: "test", BodyTimeout: base, MaxBody: 2 << 20}, nil)
	owner := f.vat.MustCreate(t, "s")
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+"/", pr)
	require.NoError(t, err)
	req.ContentLength = 1 << 20
	req.Header.Set("Authorization", "Bearer "+owner)
	go func() {
		_, _ = pw.Write(make([]byte, 1<<19))
		<-time.After(4 * base) // a pause past BodyTimeout, well within its growth
		_, _ = pw.Write(make([]byte, 1<<19))
		pw.Close()
	}()
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	<-f.door
}

func TestBodyDeadline(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want time.Duration
	}{{0, 30 * time.Second}, {-1, 30 * time.Second}, {64 << 10, 31 * time.Second}, {32 << 20, 30*time.Second + 512*time.Second}} {
		require.Equal(t, c.want, gate.BodyDeadline(30*time.Second, c.n), fmt.Sprint(c.n))
	}
}
